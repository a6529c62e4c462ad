#!/usr/bin/env python3
"""Checks the bundled Triton answers without torch, Triton or a GPU (tests/test_triton_answers.c
runs it; python3's standard library only).

    triton_answers.py ENTRIES.json SUBMISSIONS_DIR
        ENTRIES.json: {problem: the `entry` object of its trace request, with "suite"}, as
        ks_problem_python_json writes it. SUBMISSIONS_DIR: submissions/triton.
    triton_answers.py --one ENTRY.json SOURCE.py
        checks one source against one entry object (the test's negative cases).

For every answer: the submission files hold the current text of src/ (build.py was run); the
source parses (ast); it defines the problem's entry at top level with a signature that accepts the
call the scorer makes (the positional count, every keyword, every parameter without a default
given); and, except for the attacks, its top level holds only what the trace's static check
accepts (allowed imports, definitions, constant assignments, docstrings) and it names nothing the
check refuses (streams, exec, eval, open). The hackathon file answers all ten hackathon problems,
the level file at least ten level problems, and expected.json gives every answer its verdict.
Prints one line per problem found and exits 0, or prints the problems and exits 1."""
import ast
import json
import os
import sys

ALLOWED_IMPORTS = {"torch", "triton", "math", "typing", "functools", "itertools", "operator",
                   "dataclasses", "enum", "numbers", "collections", "logging", "__future__"}
REFUSED_NAMES = {"exec", "eval", "compile", "open", "__import__", "input", "breakpoint", "globals",
                 "locals", "vars"}
CUDA_REFUSED = {"Stream", "stream", "set_stream", "graph", "CUDAGraph"}  # torch.cuda.<these>
TORCH_REFUSED = {"load", "save", "hub", "ops", "library", "_C"}        # torch.<these>
ATTACK_REASONS = {"host_op", "refused", "untraceable", "oob_write", "unwritten", "mismatch"}
FILES = [("hackathon", "reflexion_oneshot_tritonbench_triton.json"), ("levels", "levels_triton.json"),
         ("attacks", "attacks_triton.json")]


def constant_value(node):
    """Whether an assigned value is a constant expression (literals and containers of them)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(constant_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and constant_value(k) for k in node.keys) and \
            all(constant_value(v) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return constant_value(node.operand)
    if isinstance(node, ast.BinOp):
        return constant_value(node.left) and constant_value(node.right)
    return False


def top_level_problems(tree):
    out = []
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Import):
            bad = [a.name for a in node.names if a.name.split(".")[0] not in ALLOWED_IMPORTS]
        elif isinstance(node, ast.ImportFrom):
            bad = [] if node.module and node.module.split(".")[0] in ALLOWED_IMPORTS else [node.module]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bad = []
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            bad = []
        elif isinstance(node, ast.Assign) and constant_value(node.value):
            bad = []
        else:
            bad = [type(node).__name__]
        out += ["line %d: %s is not allowed at top level" % (node.lineno, b) for b in bad]
    return out


def refused_names(tree):
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in REFUSED_NAMES:
            out.append("line %d: %s" % (node.lineno, node.id))
        if isinstance(node, ast.Attribute) and node.attr in CUDA_REFUSED and \
                isinstance(node.value, ast.Attribute) and node.value.attr == "cuda":
            out.append("line %d: torch.cuda.%s" % (node.lineno, node.attr))
        if isinstance(node, ast.Attribute) and node.attr in TORCH_REFUSED and \
                isinstance(node.value, ast.Name) and node.value.id == "torch":
            out.append("line %d: torch.%s" % (node.lineno, node.attr))
    return out


def signature_problems(tree, entry):
    """Whether the top-level function entry["name"] accepts the call the scorer makes."""
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry["name"]]
    if not fns:
        return ["no top-level function %s" % entry["name"]]
    a = fns[-1].args
    params = [p.arg for p in a.posonlyargs + a.args]
    npos = len(entry["args"])
    out = []
    if npos > len(params) and a.vararg is None:
        out.append("%s takes %d positional arguments, the scorer passes %d" % (entry["name"], len(params), npos))
    given = set(params[:npos])
    named = params + [p.arg for p in a.kwonlyargs]
    for k in entry["kwargs"]:
        if k in given:
            out.append("%s: keyword %s is also passed by position" % (entry["name"], k))
        elif k not in named and a.kwarg is None:
            out.append("%s has no parameter %s" % (entry["name"], k))
        given.add(k)
    ndefaults = len(a.defaults)
    required = params[:len(params) - ndefaults] if ndefaults else params
    required += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    out += ["%s: parameter %s is not given" % (entry["name"], p) for p in required if p not in given]
    return out


def check_source(text, entry, attack):
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        return ["does not parse: line %s: %s" % (e.lineno, e.msg)]
    out = signature_problems(tree, entry)
    if not attack:
        out += top_level_problems(tree) + refused_names(tree)
    return out


def main(argv):
    if len(argv) == 3 and argv[0] == "--one":
        probs = check_source(open(argv[2]).read(), json.load(open(argv[1])), False)
        for p in probs:
            print("%s: %s" % (argv[2], p))
        return 1 if probs else 0
    entries = json.load(open(argv[0]))
    root = argv[1]
    expected = json.load(open(os.path.join(root, "expected.json")))
    errors, counts = [], {}
    for folder, name in FILES:
        sub = json.load(open(os.path.join(root, name)))
        seen = set()
        for i, e in enumerate(sub):
            where = "%s[%d]" % (name, i)
            if set(e) != {"instruction", "label", "file", "test_code", "predict"}:
                errors.append("%s: GEAK keys expected, got %s" % (where, sorted(e)))
                continue
            problem = e["file"][:-3] if e["file"].endswith(".py") else None
            if problem not in entries:
                errors.append("%s: %s is not a problem with a Python entry" % (where, e["file"]))
                continue
            if problem in seen:
                errors.append("%s: %s answered twice" % (where, problem))
            seen.add(problem)
            src = os.path.join(root, "src", folder, e["file"])
            if not os.path.exists(src) or open(src).read() != e["predict"]:
                errors.append("%s: predict is not the text of %s (run build.py)" % (where, src))
            errors += ["%s (%s): %s" % (where, problem, p)
                       for p in check_source(e["predict"], entries[problem], folder == "attacks")]
            verdict = expected.get(name, {}).get(problem)
            if verdict is None:
                errors.append("%s: expected.json has no verdict for %s" % (where, problem))
            elif folder == "attacks" and (verdict.get("exec") or verdict.get("reason") not in ATTACK_REASONS):
                errors.append("%s: the attack on %s has no failing verdict" % (where, problem))
            elif folder != "attacks" and not verdict.get("exec"):
                errors.append("%s: %s is not expected to pass" % (where, problem))
        counts[folder] = seen
    hack = {p for p, e in entries.items() if e["suite"] == "hackathon"}
    if counts.get("hackathon") != hack:
        errors.append("the hackathon file answers %s, not the ten hackathon problems %s" %
                      (sorted(counts.get("hackathon", ())), sorted(hack)))
    levels = counts.get("levels", set())
    if len(levels) < 10 or any(not entries[p]["suite"].startswith("level") for p in levels):
        errors.append("the level file must answer at least ten level problems: %s" % sorted(levels))
    for e in errors:
        print(e)
    print("triton answers: %d hackathon, %d level, %d attacks checked, %d problems" %
          (len(counts.get("hackathon", ())), len(levels), len(counts.get("attacks", ())), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
