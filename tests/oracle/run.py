"""Runs the Python tests of the oracle helper and prints one summary line:

    oracle_py: N passed, N failed, N skipped

(tests/run.sh adds it to the suite's total). They use the stand-in torch and triton of
tests/oracle/fake, so they need only Python. Exit status 0 when nothing failed.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def main():
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    for test, reason in result.skipped:
        sys.stdout.write("skipped %s: %s\n" % (test.id(), reason))
    sys.stdout.write("oracle_py: %d passed, %d failed, %d skipped\n" % (passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
