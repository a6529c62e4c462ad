"""Every cap the oracle applies, in one place (part of the protocol: docs/problem-format.md,
"The oracle"; the scorer's reader, src/load/sets/oracle.c, relies on them)."""

PROTOCOL_VERSION = 1

MAX_REQUEST_LINE = 1 << 20  # bytes of one request line
MAX_PATH = 4096  # bytes of a path in a request
MAX_NAMES = 256  # entries named in one request
MAX_NAME = 128  # bytes of an entry's name
MAX_CASES = 1024  # cases recorded from one file (calls past it: an error naming the file)
MAX_VALUES = 4096  # values (tensors, scalars, items of tuples) described in one case
MAX_DEPTH = 8  # nesting of tuples, lists and dicts in one argument or return value
MAX_RANK = 16  # dimensions of one tensor
MAX_STR = 256  # bytes of a string argument kept
MAX_REASON = 2048  # bytes of an error's reason
MAX_OUTPUT = 4096  # bytes of what the set's code printed, kept
MAX_REPLY = 32 << 20  # bytes of one child's reply
DEFAULT_TIMEOUT_S = 300  # one file's run (imports, Triton compiles, every test)
MAX_TIMEOUT_S = 3600
DEFAULT_MAX_BYTES = 16 << 30  # bytes materialize may write, inputs and outputs together
MAX_COPY_BYTES = 64 << 30  # bytes of argument copies held at once (in-place detection)
KERNELBENCH_INIT_SEED = 42  # KernelBench seeds Model's construction so ModelNew's parameters match
CHILD_EXIT_GRACE_S = 5
