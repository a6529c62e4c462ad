#!/usr/bin/env python3
"""Writes docs/problems.md from the problem specs and the measurements of a GPU host:
tests/gpu/validate_goldens.py --perf --json (golden times, throughput, library comparison) and
score check-refs --json (self-checks, roofline fraction). Usage:
    scripts/problems-doc.py --validate V.json [--validate V2.json ...] --check-refs C.json \
        --ceilings 'bandwidth=3002,f32=65.6,f16_tc=975,bf16_tc=975' > docs/problems.md
The last section, the Python entries of Triton answers, needs no measurement:
    scripts/problems-doc.py --python-entries-only prints it alone.
Nor does the section on the hackathon problems' domains and deliberate differences from the
hackathon's reference implementations (DIFFERENCES below):
    scripts/problems-doc.py --domains-only prints it alone."""
import argparse, json, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("--root", default="reference_tests")
ap.add_argument("--validate", action="append", default=[])
ap.add_argument("--check-refs")
ap.add_argument("--ceilings", default="")
ap.add_argument("--device", default="one NVIDIA H100 80GB HBM3")
ap.add_argument("--python-entries-only", action="store_true")
ap.add_argument("--domains-only", action="store_true")
a = ap.parse_args()


def pylit(v):
    return {True: "True", False: "False", None: "None"}[v] if v is None or isinstance(v, bool) else json.dumps(v)


# What each hackathon golden does differently from the hackathon's reference implementation
# (TritonBench-G, as GEAK-eval ships it), on purpose; "none" when it computes the same on every
# scored case.
DIFFERENCES = {
    "embedding_triton_kernel": "float16 weights and output (TritonBench-G's test used float32; the kernel is the same "
    "for any dtype); the shard's end is `vob_start_id + vocab` (the reference takes any end: ids at or past it give "
    "zero rows in both).",
    "flash_decode2_phi": "none; `b_seqlen` is drawn in [1, nblk * block_seq] (an empty sequence makes the "
    "reference divide 0 by 0).",
    "int4_matmul": "float16 activations (TritonBench-G's perf script used float32, its test float16); the weights "
    "arrive packed with random bits (every zero point 0..15) instead of from the reference's `quantize_int4`; one "
    "case has signed scales. Shallow K (K not a multiple of 1024) is extended: the reference reads past its "
    "matrices there.",
    "l2_norm_bwd": "none; rows longer than 64 KiB (20000, 20001 columns) are extended.",
    "l2_norm_triton1": "none; rows longer than 64 KiB are extended, and the timed cases are in-domain sizes that "
    "fill the GPU (2^27 elements, rows up to 16384 columns) instead of kscore's earlier long rows.",
    "matrix_transpose": "none; sizes that are not powers of two or hold more than 2^20 elements are extended. The "
    "scored timed cases move 4 MiB: a few microseconds on an H200, under `check-refs`'s 0.1 ms and close to the "
    "2 us timer floor (the hackathon timed 128 x 2^2..2^9).",
    "matrix_vector_multip": "none.",
    "rotary_transform": "none since the golden follows the reference: row s is at position "
    "s + seqlen_offset + seqlen (the reference adds seqlen to an integer offset before its kernel), positions "
    "at or past seqlen_ro are not rotated. flash-attention's own wrapper uses s + seqlen_offset; kscore's golden "
    "did too before. Only interleaved=False, conjugate=False, fixed-length batches (the call the spec makes). "
    "A table shorter than seqlen_offset + seqlen is extended.",
    "sin_kernel": "none (no limits: every size the spec can state; the reference's empty-tensor test has no "
    "case, n starts at 1).",
    "triton_matmul": "none.",
}


def domains(root):
    """Each hackathon problem's domain (its `domain` rules) and its deliberate differences."""
    print("## The hackathon problems as the hackathon defined them\n")
    print("Each `hackathon` problem states the domain of its operator as the hackathon's reference "
          "implementation (TritonBench-G, as GEAK-eval ships it) enforces it (docs/problem-format.md, "
          "\"The domain\"): every scored case lies inside, cases beyond are extended (run, reported, never "
          "counted). *differences*: what the golden or the cases do differently from the reference, on "
          "purpose.\n")
    print("| problem | domain | extended cases | differences |")
    print("| --- | --- | ---: | --- |")
    sd = os.path.join(root, "hackathon")
    for name in sorted(os.listdir(sd)):
        pj = os.path.join(sd, name, "problem.json")
        if not os.path.exists(pj):
            continue
        spec = json.load(open(pj))
        rules = "; ".join(f"`{r['rule']}` ({r['message']})" for r in spec.get("domain", [])) or "none"
        ext = sum(1 for k in ("correctness", "perf") for c in spec["cases"].get(k, []) if c.get("extended"))
        print(f"| {name} | {rules.replace('|', '&#124;')} | {ext} | {DIFFERENCES.get(name, '')} |")
    print()


def python_entries(root):
    """The call each problem's `python` section makes (docs/problem-format.md, "The Python entry")."""
    print("## Python entries (Triton answers)\n")
    print("How the scorer calls a Triton answer's entry for each problem, in the names of the spec "
          "(`score problems --export-prompts FILE --language triton` writes the whole instruction). "
          "*made*: inputs the entry makes itself with a random op; an entry that returns nothing "
          "writes its outputs in place.\n")
    print("| problem | call | made | note |")
    print("| --- | --- | --- | --- |")
    for suite in sorted(os.listdir(root)):
        sd = os.path.join(root, suite)
        if not os.path.isdir(sd):
            continue
        for name in sorted(os.listdir(sd)):
            pj = os.path.join(sd, name, "problem.json")
            if not os.path.exists(pj):
                continue
            py = json.load(open(pj)).get("python")
            if not py:
                print(f"| {name} | (none) | | |")
                continue
            parts = [v if isinstance(v, str) else pylit(v["const"]) for v in py["args"]]
            parts += [f"{k}={v if isinstance(v, str) else pylit(v['const'])}" for k, v in py.get("kwargs", {}).items()]
            call = f"{py['entry']}({', '.join(parts)})"
            if py.get("returns"):
                call = f"{py['returns']} = {call}"
            note = py.get("note", "").replace("|", "\\|")
            print(f"| {name} | `{call}` | {', '.join(py.get('made_by_entry', []))} | {note} |")
    print()


if a.domains_only:
    domains(a.root)
    sys.exit(0)
if a.python_entries_only:
    python_entries(a.root)
    sys.exit(0)

ceil = dict((k, float(v)) for k, v in (x.split("=") for x in a.ceilings.split(",") if x))
val = {}
for f in a.validate:
    for p in json.load(open(f))["problems"]:
        val[p["problem"]] = p
refs = {r["problem"]: r for r in json.load(open(a.check_refs))} if a.check_refs else {}

def dtypes(spec):
    return ", ".join(sorted({arg["type"].rstrip("*") for arg in spec["args"] if arg["type"].endswith("*")}))

def dims(case):
    return ", ".join(f"{k}={v}" for k, v in case.items() if k not in ("seeds", "dist", "label"))

print("# Problems\n")
print(f"Every problem of `reference_tests/`, with the golden kernel's measured time on {a.device} "
      "(median of 20 or more runs, L2 flushed, by `tests/gpu/validate_goldens.py --perf`), its throughput "
      "under the spec's own bytes and FLOPs formulas, the fraction of the measured roofline it reaches "
      "(bandwidth %s GB/s; FP32 %s, FP16/BF16 tensor-core %s / %s TFLOP/s, from `score calibrate`), and, where "
      "the problem has a library baseline (cuBLAS through torch.matmul, cuDNN through F.conv2d, "
      "scaled_dot_product_attention, or torch's own operator), the golden kernel's throughput as a "
      "percentage of the library's at the same size and dtype. `check` is the result of `score check-refs` "
      "on the same host (the golden kernel passes its own cases, its outputs carry signal, its perf cases "
      "are long enough, no case beats the roofline).\n" % (
          ceil.get("bandwidth", "?"), ceil.get("f32", "?"), ceil.get("f16_tc", "?"), ceil.get("bf16_tc", "?")))
print("To regenerate: run `tests/gpu/validate_goldens.py --perf --json V.json` and "
      "`score check-refs --json C.json` on a GPU host, then `scripts/problems-doc.py` (see its header).\n")
# Targets: memory-bound goldens >= 60% of the measured bandwidth; GEMM-class (tensor-core or FP32
# arithmetic peak) >= 50% of the library at the same size and dtype.
below = []
for name, v in sorted(val.items()):
    spec = json.load(open(os.path.join(v["folder"], "problem.json")))
    for c in (c for c in v.get("cases", []) if c.get("perf_case")):
        if spec.get("peak", "none") == "none":
            if c.get("pct_bandwidth") is not None and c["pct_bandwidth"] < 60:
                below.append(f"`{name}` {dims(c.get('dims', {}))}: {c['pct_bandwidth']:.0f}% of bandwidth (target 60%)")
        elif c.get("pct_of_library") is not None and c["pct_of_library"] < 50:
            below.append(f"`{name}` {dims(c.get('dims', {}))}: {c['pct_of_library']:.0f}% of the library (target 50%)")
print("## Against the targets\n")
if below:
    print("Every golden kernel passes its checks. These perf cases miss the speed target for their kind:\n")
    for b in below:
        print(f"- {b}")
    print()
else:
    print("Every golden kernel passes its checks and meets the speed target for its kind.\n")

domains(a.root)
for suite in sorted(os.listdir(a.root)):
    sd = os.path.join(a.root, suite)
    if not os.path.isdir(sd):
        continue
    print(f"## Suite `{suite}`\n")
    print("| problem | dtypes | perf case | FLOPs / bytes | golden ms | GB/s | TFLOP/s | % roofline | % of library | check |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in sorted(os.listdir(sd)):
        pj = os.path.join(sd, name, "problem.json")
        if not os.path.exists(pj):
            continue
        spec = json.load(open(pj))
        v = val.get(name, {})
        perf_cases = [c for c in v.get("cases", []) if c.get("perf_case")]
        r = refs.get(name)
        check = "PASS" if r and not r["failure"] else (f"FAIL: {r['failure']}" if r else "not run")
        peak = spec.get("peak", "none")
        fb = f"`{spec.get('flops', '0')}` / `{spec['bytes']}`"
        if not perf_cases:
            print(f"| {name} | {dtypes(spec)} | {', '.join(dims(c) for c in spec['cases'].get('perf', []))} | {fb} | not measured | | | | | {check} |")
            continue
        for i, c in enumerate(perf_cases):
            g = c.get("golden", {})
            ms = g.get("median_ms")
            floor = 0
            if ms:
                floor = max(c.get("bytes", 0) / (ceil.get("bandwidth", 0) * 1e9) if ceil.get("bandwidth") else 0,
                            c.get("flops", 0) / (ceil.get(peak, 0) * 1e12) if ceil.get(peak) else 0) * 1e3
            roof = f"{100 * floor / ms:.0f}" if ms and floor else ""
            lib = c.get("pct_of_library")
            label = dims(c.get("dims", {}))
            print(f"| {name if i == 0 else ''} | {dtypes(spec) if i == 0 else ''} | {label} | {fb if i == 0 else ''} | "
                  f"{ms:.4f} | {c.get('gbps', 0):.0f} | {c.get('tflops', 0):.1f} | {roof} | "
                  f"{'' if lib is None else f'{lib:.0f}'} | {check if i == 0 else ''} |")
    print()

python_entries(a.root)
