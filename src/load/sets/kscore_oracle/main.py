"""Command line: `kscore-oracle serve`. Reads JSON requests on stdin, one per line, and answers
one JSON line each on stdout (docs/problem-format.md, "The oracle"). Exit status: 0 at end of
input or `quit`, 2 for a usage error."""

import sys

USAGE = """usage: kscore-oracle serve
Reads JSON requests on stdin (ops: version, cases, materialize, quit), one per line, and answers
one JSON line each on stdout. Runs a problem set's own code (trusted: never an answer's).
"""


def main(argv):
    args = list(argv)
    if args != ["serve"]:
        sys.stderr.write(USAGE)
        return 0 if args in (["-h"], ["--help"]) else 2
    import shutil
    from .server import Server, protect_stdio
    inp, out = protect_stdio()
    server = Server(out)
    server.load_torch()
    try:
        return server.serve(inp)
    finally:
        shutil.rmtree(server.workdir, ignore_errors=True)
