"""Command line: `kscore-triton serve [--allow-unsandboxed] [--no-provenance] [--cache DIR]` or
`kscore-triton check`.

Both read requests on stdin and answer on stdout (docs/triton-protocol.md); `check` answers
static checks only and never imports torch. Exit status: 0 at end of input or `quit`, 2 for a
usage error.
"""

import sys

USAGE = """usage: kscore-triton serve [--allow-unsandboxed] [--no-provenance] [--cache DIR]
       kscore-triton check
Reads JSON requests on stdin, one per line, and answers one JSON line each on stdout.
  serve               static checks and traces (imports torch and triton; one child per trace)
  check               static checks only (plain python3, no torch)
  --allow-unsandboxed trace even where Landlock or seccomp is missing (trusted answers only)
  --no-provenance     pass the trace's CUBINs on without recompiling them (trusted answers only)
  --cache DIR         keep the recompiles' results in DIR too (created; files written 0600)
"""


def main(argv):
    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stderr.write(USAGE)
        return 0 if args else 2
    mode = args.pop(0)
    cache_dir = None
    if "--cache" in args:
        i = args.index("--cache")
        if i + 1 >= len(args):
            sys.stderr.write(USAGE)
            return 2
        cache_dir = args[i + 1]
        del args[i:i + 2]
    flags = {a for a in args if a in ("--allow-unsandboxed", "--no-provenance")}
    args = [a for a in args if a not in flags]
    if mode not in ("serve", "check") or args or ((flags or cache_dir) and mode != "serve"):
        sys.stderr.write(USAGE)
        return 2
    from .server import Server, protect_stdio
    inp, out = protect_stdio()
    server = Server(mode, out, allow_unsandboxed="--allow-unsandboxed" in flags,
                    provenance=False if "--no-provenance" in flags else None, cache_dir=cache_dir)
    if mode == "serve":
        server.load_torch()
    try:
        return server.serve(inp)
    finally:
        import shutil
        shutil.rmtree(server.workdir, ignore_errors=True)
