"""Every cap the helper applies to what it reads or writes, in one place.

The numbers are part of the protocol (docs/triton-protocol.md): the scorer's decoder may rely on
them, so change them together with that page.
"""

PROTOCOL_VERSION = 1

# requests
MAX_REQUEST_LINE = 16 << 20  # bytes of one JSON request line (a 1 MiB source escapes to < 6 MiB)
MAX_SOURCE = 1 << 20  # bytes of an answer's source (UTF-8)
MAX_CASES = 256  # cases in one trace request
MAX_TENSORS = 64  # tensors in one case
MAX_SCALARS = 64  # scalars in one case
MAX_RANK = 8  # dimensions of one tensor
MAX_ELEMENTS = 1 << 36  # elements of one tensor
MAX_ENTRY_ARGS = 64  # positional plus keyword arguments of the entry
MAX_NAME = 128  # bytes of a tensor, scalar, entry or keyword name
MAX_LABEL = 512  # bytes of a case label kept
MAX_TIMEOUT_S = 3600  # wall-clock limit a request may ask for
DEFAULT_TIMEOUT_S = 120
MAX_DEVICE = 1023  # highest device ordinal

# static check
MAX_AST_NODES = 500_000  # nodes in an answer's syntax tree

# trace and response
MAX_STEPS = 4096  # fills, copies and launches recorded in one case
MAX_KERNELS = 256  # distinct compiled kernels in one answer
MAX_PARAMS = 1024  # parameters of one kernel
MAX_CUBIN_TOTAL = 32 << 20  # bytes of all cubins of one answer (before base64)
MAX_OUTPUT = 4096  # bytes of the answer's captured stdout, and of its stderr
MAX_REASON = 2048  # bytes of a reason (an exception's type and message)
MAX_NOTES = 16  # notes per case
MAX_CHILD_REPLY = 64 << 20  # bytes the server reads back from a trace child
CHILD_EXIT_GRACE_S = 5  # seconds a child may take to exit after writing its reply
# seconds the recompile of an answer's kernels may take past the trace's own timeout_s (kscore
# waits timeout_s + 30 s for the whole answer: tracer.h, KS_TRACER_DEFAULT_GRACE)
PROVENANCE_GRACE_S = 20

# confinement of a trace child (rlimits)
CHILD_FSIZE = 1 << 30  # bytes one file may grow to (the private Triton cache, temporary files)
CHILD_NOFILE = 4096  # open descriptors
CHILD_CPU_EXTRA_S = 30  # CPU seconds allowed beyond the request's wall-clock limit
CHILD_UID = 65534  # the unprivileged user and group a child started as root switches to
CHILD_GID = 65534
CHILD_DISK_TOTAL = 2 << 30  # bytes (allocated blocks) of everything in a child's private folder
CHILD_DISK_ENTRIES = 100_000  # files, folders and links in a child's private folder
