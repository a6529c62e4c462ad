#!/usr/bin/env python3
"""Writes a GEAK submission file whose answers are a TritonBench-G folder's own reference
implementations (issue: the hackathon's problems as the hackathon defined them).

    python3 tests/gpu/reference_answers.py TB_DIR OUT.json [NAME...]

Each answer is the code above the reference file's separator (a line of 146 '#'), as GEAK
entries carry it; NAME defaults to the ten hackathon problems. On a GPU host, scoring OUT.json
must find every reference correct on every scored case of kscore's hackathon problems."""
import json
import os
import sys

HACKATHON = ["embedding_triton_kernel", "flash_decode2_phi", "int4_matmul", "l2_norm_bwd",
             "l2_norm_triton1", "matrix_transpose", "matrix_vector_multip", "rotary_transform",
             "sin_kernel", "triton_matmul"]
SEPARATOR = "#" * 146


def reference_code(path):
    """The code above the separator line, or the whole file when there is none."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if line.rstrip() == SEPARATOR:
            return "\n".join(lines[:i]) + "\n"
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tb, out = argv[1], argv[2]
    names = argv[3:] or HACKATHON
    ref = os.path.join(tb, "reference") if os.path.isdir(os.path.join(tb, "reference")) else tb
    entries = [{"file": n + ".py", "predict": reference_code(os.path.join(ref, n + ".py"))} for n in names]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
    print("reference_answers: %d answers in %s" % (len(entries), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
