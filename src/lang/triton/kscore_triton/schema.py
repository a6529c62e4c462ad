"""The trace response's schema, checked strictly (docs/triton-protocol.md, "Response").

`check_reply(obj)` returns None when `obj` is a well-formed trace reply, else the first problem.
The server runs it on every reply a child sends (a child runs answer code, so its reply is
untrusted until checked); the tests run it on the recorded fixtures. The scorer's own decoder
must check the same things.
"""

import base64
import binascii
import hashlib

from . import limits
from .protocol import DTYPES, STATUSES
from .provenance import check_record

BUFFER_KINDS = ("input", "output", "scratch")
_MAX_GRID = ((1 << 31) - 1, 65535, 65535)


def _is_int(v, lo=0, hi=1 << 62):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _is_number(v):
    if isinstance(v, str):
        return v in ("nan", "inf", "-inf") or v.lstrip("-").isdigit()
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _one_of(v, names):
    return isinstance(v, str) and v in names


def _short_str(v, cap):
    return isinstance(v, str) and len(v.encode("utf-8", "replace")) <= cap


class _Problem(Exception):
    pass


MAX_DEPTH = 16  # nesting of a reply (an ok reply nests 7 deep: cases, steps, args)
# the fields a reply may carry; the server passes on these alone
FIELDS = ("status", "reason", "line", "case", "versions", "confinement", "seconds", "notes", "stdout",
          "stderr", "kernels", "cases")


def depth_over(obj, cap):
    """True when `obj` nests deeper than `cap` lists and objects (walked without recursion)."""
    stack = [(obj, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > cap:
                return True
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def _need(cond, text):
    if not cond:
        raise _Problem(text)


def _kernel(k, i):
    where = "kernels[%d]" % i
    _need(isinstance(k, dict), where + " is not an object")
    _need(isinstance(k.get("sha256"), str) and len(k["sha256"]) == 64, where + ".sha256")
    _need(isinstance(k.get("name"), str) and 0 < len(k["name"]) <= 1024, where + ".name")
    try:
        cubin = base64.b64decode(k.get("cubin", ""), validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise _Problem(where + ".cubin is not base64") from None
    _need(cubin[:4] == b"\x7fELF", where + ".cubin is not an ELF file")
    _need(hashlib.sha256(cubin).hexdigest() == k["sha256"], where + ".sha256 does not match the cubin")
    _need(_is_int(k.get("num_warps"), 1, 64), where + ".num_warps")
    _need(_is_int(k.get("num_ctas"), 1, 16), where + ".num_ctas")
    _need(_is_int(k.get("shared"), 0, 1 << 30), where + ".shared")
    cd = k.get("cluster_dims")
    _need(isinstance(cd, list) and len(cd) == 3 and all(_is_int(c, 1, 16) for c in cd), where + ".cluster_dims")
    for key in ("global_scratch_size", "profile_scratch_size"):
        _need(_is_int(k.get(key), 0, 1 << 40), where + "." + key)
    for key in ("global_scratch_align", "profile_scratch_align"):
        _need(_is_int(k.get(key), 1, 1 << 20), where + "." + key)
    _need(isinstance(k.get("cooperative"), bool) and isinstance(k.get("pdl"), bool), where + " cooperative/pdl")
    params = k.get("params")
    _need(isinstance(params, list) and len(params) <= limits.MAX_PARAMS
          and all(isinstance(p, str) and 0 < len(p) <= 64 for p in params), where + ".params")
    if "jit" in k:  # the record the server recompiles the kernel from (provenance.py)
        problem = check_record(k["jit"])
        _need(problem is None, "%s.jit: %s" % (where, problem))
    return len(cubin)


def _buffer_ref(arg, buffers, where):
    _need(isinstance(arg, dict) and isinstance(arg.get("buffer"), str) and arg["buffer"] in buffers,
          where + " names no buffer of the case")
    _need(_is_int(arg.get("offset"), 0, 1 << 48), where + ".offset")


def _region(r, buffers, where):
    _buffer_ref(r, buffers, where)
    sizes, strides = r.get("sizes"), r.get("strides")
    _need(isinstance(sizes, list) and isinstance(strides, list) and len(sizes) == len(strides)
          and len(sizes) <= limits.MAX_RANK, where + " sizes/strides")
    _need(all(_is_int(s, 1, 1 << 40) for s in sizes) and all(_is_int(s, 0, 1 << 40) for s in strides),
          where + " sizes/strides values")


def _launch(step, kernels, buffers, where):
    _need(_is_int(step.get("kernel"), 0, len(kernels) - 1), where + ".kernel")
    kernel = kernels[step["kernel"]]
    grid, block = step.get("grid"), step.get("block")
    _need(isinstance(grid, list) and len(grid) == 3 and all(_is_int(g, 1, m) for g, m in zip(grid, _MAX_GRID)),
          where + ".grid")
    _need(isinstance(block, list) and len(block) == 3 and block == [32 * kernel["num_warps"], 1, 1], where + ".block")
    _need(_is_int(step.get("shared"), 0, 1 << 30) and step["shared"] == kernel["shared"], where + ".shared")
    args = step.get("args")
    params = kernel["params"]
    _need(isinstance(args, list) and len(args) == len(params) + 2, where + ".args count")
    for j, (arg, ty) in enumerate(zip(args, params)):
        w = "%s.args[%d]" % (where, j)
        if ty.startswith("*"):
            _buffer_ref(arg, buffers, w)
        else:
            _need(isinstance(arg, dict) and arg.get("type") == ty and _is_number(arg.get("value")), w)
    for arg, what in zip(args[-2:], ("global_scratch", "profile_scratch")):
        w = "%s.%s" % (where, what)
        _need(isinstance(arg, dict), w)
        if "null" in arg:
            _need(arg == {"null": what}, w)
        else:
            _buffer_ref(arg, buffers, w)


def _step(step, kernels, buffers, where):
    _need(isinstance(step, dict), where + " is not an object")
    op = step.get("op")
    if op == "launch":
        _launch(step, kernels, buffers, where)
    elif op == "fill":
        _buffer_ref(step, buffers, where)
        _need(_is_int(step.get("bytes"), 1, 1 << 48), where + ".bytes")
        _need(_one_of(step.get("dtype"), DTYPES) and _is_number(step.get("value")), where + " dtype/value")
    elif op == "copy":
        _need(_one_of(step.get("dtype"), DTYPES), where + ".dtype")
        _region(step.get("dst"), buffers, where + ".dst")
        _region(step.get("src"), buffers, where + ".src")
        _need(step["dst"]["sizes"] == step["src"]["sizes"], where + " dst and src sizes differ")
    else:
        raise _Problem(where + ".op")


def _case(case, kernels, i):
    where = "cases[%d]" % i
    _need(isinstance(case, dict) and _is_int(case.get("index"), 0, 1 << 31), where + ".index")
    buffers = case.get("buffers")
    _need(isinstance(buffers, list), where + ".buffers")
    names = {}
    for b in buffers:
        _need(isinstance(b, dict) and isinstance(b.get("name"), str) and _one_of(b.get("kind"), BUFFER_KINDS),
              where + ".buffers entry")
        _need(b["name"] not in names, where + ".buffers: duplicate " + b["name"][:64])
        if b["kind"] == "scratch":
            _need(_is_int(b.get("bytes"), 1, 1 << 48), where + ".buffers scratch bytes")
        names[b["name"]] = b
    steps = case.get("steps")
    _need(isinstance(steps, list) and len(steps) <= limits.MAX_STEPS, where + ".steps")
    for j, step in enumerate(steps):
        _step(step, kernels, names, "%s.steps[%d]" % (where, j))
    notes = case.get("notes", [])
    _need(isinstance(notes, list) and all(isinstance(n, str) for n in notes), where + ".notes")


def _common(obj):
    _need(not [k for k in obj if k not in FIELDS and k != "id"], "unknown field")
    if "versions" in obj:
        v = obj["versions"]
        _need(isinstance(v, dict) and len(v) <= 8 and all(_short_str(k, 32) and _short_str(x, 64) for k, x in v.items()),
              "versions")
    if "seconds" in obj:
        v = obj["seconds"]
        _need(isinstance(v, dict) and len(v) <= 16 and all(_short_str(k, 32) and _is_number(x) and not isinstance(x, str)
                                                           for k, x in v.items()), "seconds")
    if "notes" in obj:
        v = obj["notes"]
        _need(isinstance(v, list) and len(v) <= limits.MAX_NOTES * 4
              and all(_short_str(n, limits.MAX_REASON) for n in v), "notes")
    if "case" in obj:
        _need(_is_int(obj["case"], 0, 1 << 31), "case")
    for key in ("stdout", "stderr"):
        if key in obj:
            _need(isinstance(obj[key], str) and len(obj[key].encode("utf-8", "replace")) <= limits.MAX_OUTPUT + 64, key)
    if "confinement" in obj:
        c = obj["confinement"]
        _need(isinstance(c, dict) and isinstance(c.get("landlock"), bool) and isinstance(c.get("seccomp"), bool)
              and len(c) <= 8 and all(_short_str(k, 32) and (isinstance(x, (bool, int)) or _short_str(x, 512))
                                      for k, x in c.items()), "confinement")
    if "reason" in obj:
        _need(isinstance(obj["reason"], str) and len(obj["reason"].encode("utf-8", "replace")) <= limits.MAX_REASON + 64,
              "reason")
    if "line" in obj:
        _need(_is_int(obj["line"], 1, 1 << 31), "line")


def check_reply(obj):
    """None when `obj` is a well-formed trace reply (with or without id), else the problem. Total:
    whatever `obj` is, it returns and never raises."""
    try:
        _need(isinstance(obj, dict), "not an object")
        _need(not depth_over(obj, MAX_DEPTH), "nested deeper than %d" % MAX_DEPTH)
        _need(obj.get("status") in STATUSES, "status")
        _common(obj)
        if obj["status"] != "ok":
            _need(isinstance(obj.get("reason"), str), "reason")
            return None
        kernels = obj.get("kernels")
        _need(isinstance(kernels, list) and len(kernels) <= limits.MAX_KERNELS, "kernels")
        total = sum(_kernel(k, i) for i, k in enumerate(kernels))
        _need(total <= limits.MAX_CUBIN_TOTAL, "cubins over %d bytes" % limits.MAX_CUBIN_TOTAL)
        _need(len({k["sha256"] for k in kernels}) == len(kernels), "kernels are not deduplicated")
        cases = obj.get("cases")
        _need(isinstance(cases, list) and 0 < len(cases) <= limits.MAX_CASES, "cases")
        for i, case in enumerate(cases):
            _case(case, kernels, i)
    except _Problem as e:
        return str(e)
    except Exception as e:  # a shape no check above foresaw: still the reply's fault
        return "a reply the checks cannot read (%s)" % type(e).__name__
    return None
