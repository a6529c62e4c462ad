"""The wire protocol: one JSON object per line in, one per line out (docs/triton-protocol.md).

`parse_request(line)` turns a request line into a validated `Request`, or raises `BadRequest`
with a reason naming the field. `encode(obj)` makes the one line written for a response. Every
string that may come from an answer goes through `clean_text` (capped, valid UTF-8, no NUL), and
every number through `json_number` (exact integers, no NaN/Infinity literals).
"""

import json
import math

from . import limits

OPS = ("check", "trace", "version", "quit")
DTYPES = ("f16", "bf16", "f32", "f64", "i8", "u8", "i16", "i32", "u32", "i64", "bool")
INT_DTYPES = ("i8", "u8", "i16", "i32", "u32", "i64")
SCALAR_TYPES = ("i32", "u32", "i64", "f32", "f64", "bool")
ROLES = ("in", "out", "inout")
DIST_KINDS = ("normal", "uniform", "int", "bits", "ones", "zeros")
STATUSES = ("ok", "refused", "host_op", "untraceable", "error", "timeout", "unavailable", "bad_request")


class BadRequest(Exception):
    """A request kscore should never have sent; `id` is the request's id when it could be read."""

    def __init__(self, reason, req_id=None):
        super().__init__(reason)
        self.reason = reason
        self.id = req_id


class Request:
    """A validated request. `op` is one of OPS; trace fields are set for `trace` only."""

    def __init__(self, op, req_id):
        self.op = op
        self.id = req_id
        self.source = None
        self.device = 0
        self.problem = ""
        self.timeout_s = limits.DEFAULT_TIMEOUT_S
        self.case_timeout_s = None  # None: the whole trace has timeout_s, however many cases
        self.entry = None
        self.cases = []


class Entry:
    """The answer's Python entry: `args` and `kwargs` hold ("name", str) or ("const", value)."""

    def __init__(self, name, args, kwargs, returns, made_by_entry):
        self.name = name
        self.args = args
        self.kwargs = kwargs
        self.returns = returns
        self.made_by_entry = made_by_entry


class TensorSpec:
    def __init__(self, name, dtype, shape, role, dist):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.role = role
        self.dist = dist  # (kind, a, b); a, b are None where the kind takes no parameter

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


class Case:
    def __init__(self, index, label, perf, tensors, scalars):
        self.index = index
        self.label = label
        self.perf = perf
        self.tensors = tensors  # list of TensorSpec, in request order
        self.scalars = scalars  # dict name -> (type, Python number)

    def tensor(self, name):
        for t in self.tensors:
            if t.name == name:
                return t
        return None


# ---- text and numbers going out ----

def clean_text(text, cap):
    """`text` as a str that encodes to at most `cap` UTF-8 bytes: lone surrogates replaced, NUL
    bytes dropped, and when cut, cut on a character boundary and ended with a marker."""
    if not isinstance(text, str):
        text = str(text)
    data = text.replace("\x00", "").encode("utf-8", "replace")
    if len(data) <= cap:
        return data.decode("utf-8")
    marker = "\n[truncated at %d bytes]" % cap
    keep = max(0, cap - len(marker.encode()))
    return data[:keep].decode("utf-8", "ignore") + marker


def json_number(value):
    """A number as JSON can carry it exactly: ints within 2^53 and finite floats as numbers,
    bigger ints as decimal strings, NaN and infinities as "nan", "inf", "-inf"."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if abs(value) <= (1 << 53) else str(value)
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def encode(obj):
    """One response line (UTF-8 bytes ending in a newline). Refuses NaN: callers use json_number."""
    return (json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")


def response(req_id, status, **fields):
    """A response object: id, status, then the given fields (None values left out)."""
    out = {"id": req_id, "status": status}
    out.update((k, v) for k, v in fields.items() if v is not None)
    return out


# ---- requests coming in ----

def _field(obj, key, kinds, where, required=True, default=None):
    """obj[key] checked against `kinds`; an optional field may be missing or null (kscore's cJSON
    writes null for an absent label)."""
    if key not in obj or (obj[key] is None and not required):
        if required:
            raise BadRequest("%s: missing \"%s\"" % (where, key))
        return default
    value = obj[key]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if isinstance(value, bool) and bool not in kinds:
        raise BadRequest("%s: \"%s\" has the wrong type" % (where, key))
    if not isinstance(value, kinds):
        raise BadRequest("%s: \"%s\" has the wrong type" % (where, key))
    return value


def _name(value, where):
    if not isinstance(value, str) or not value or "\x00" in value or len(value.encode("utf-8", "replace")) > limits.MAX_NAME:
        raise BadRequest("%s: a name must be a non-empty string of at most %d bytes" % (where, limits.MAX_NAME))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest("%s: a name must be valid UTF-8" % where) from None
    return value


def _int(value, where, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadRequest("%s: must be an integer in [%d, %d]" % (where, lo, hi))
    return value


def _id(obj):
    req_id = obj.get("id")
    if req_id is None:
        return None
    if isinstance(req_id, bool) or not isinstance(req_id, (int, str)):
        raise BadRequest("\"id\" must be an integer or a string")
    if isinstance(req_id, int) and not 0 <= req_id <= (1 << 53):
        raise BadRequest("\"id\" must be in [0, 2^53]")
    if isinstance(req_id, str) and (len(req_id) > 64 or "\x00" in req_id):
        raise BadRequest("\"id\" must be at most 64 characters")
    return req_id


def _source(obj):
    source = _field(obj, "source", str, "request")
    try:
        size = len(source.encode("utf-8"))
    except UnicodeEncodeError:
        raise BadRequest("\"source\" is not valid UTF-8") from None
    if size > limits.MAX_SOURCE:
        raise BadRequest("\"source\" is %d bytes, over the %d-byte limit" % (size, limits.MAX_SOURCE))
    return source


def _arg(value, where):
    if isinstance(value, str):
        return ("name", _name(value, where))
    if isinstance(value, dict) and set(value) == {"const"}:
        const = value["const"]
        if const is not None and not isinstance(const, (bool, int, float, str)):
            raise BadRequest("%s: a const must be null, a boolean, a number or a string" % where)
        if isinstance(const, str) and len(const) > limits.MAX_LABEL:
            raise BadRequest("%s: a const string is too long" % where)
        return ("const", const)
    raise BadRequest("%s: an argument is a name or {\"const\": value}" % where)


def _entry(obj):
    e = _field(obj, "entry", dict, "request")
    name = _name(_field(e, "name", str, "entry"), "entry.name")
    if not name.isidentifier():
        raise BadRequest("entry.name must be a Python identifier")
    args = _field(e, "args", list, "entry", required=False, default=[])
    kwargs = _field(e, "kwargs", dict, "entry", required=False, default={})
    if len(args) + len(kwargs) > limits.MAX_ENTRY_ARGS:
        raise BadRequest("entry: more than %d arguments" % limits.MAX_ENTRY_ARGS)
    args = [_arg(a, "entry.args[%d]" % i) for i, a in enumerate(args)]
    kw = {}
    for key, value in kwargs.items():
        if not key.isidentifier():
            raise BadRequest("entry.kwargs: %r is not a Python identifier" % key[:64])
        kw[key] = _arg(value, "entry.kwargs.%s" % key)
    returns = e.get("returns")
    if returns is not None:
        returns = _name(returns, "entry.returns")
    made = _field(e, "made_by_entry", list, "entry", required=False, default=[])
    made = [_name(m, "entry.made_by_entry") for m in made]
    if len(made) > limits.MAX_TENSORS or len(set(made)) != len(made):
        raise BadRequest("entry.made_by_entry: names must be distinct")
    return Entry(name, args, kw, returns, made)


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRequest("%s: must be a number" % where)
    if isinstance(value, float) and not math.isfinite(value):
        raise BadRequest("%s: must be finite" % where)
    return value


def _dist(obj, dtype, where):
    """(kind, a, b): a/b are the first and second parameter; the request may name them `a`/`b` or
    as problem.json does (`mean`/`std`, `lo`/`hi`). Without a dist: normal(0, 1) for floats,
    int(-100, 100) for signed and int(0, 100) for unsigned integers, bits for bool."""
    if obj is None:
        if dtype == "bool":
            return ("bits", None, None)
        if dtype in INT_DTYPES:
            return ("int", 0 if dtype.startswith("u") else -100, 100)
        return ("normal", 0.0, 1.0)
    if not isinstance(obj, dict):
        raise BadRequest("%s: dist must be an object" % where)
    kind = _field(obj, "kind", str, where + ".dist")
    if kind not in DIST_KINDS:
        raise BadRequest("%s: unknown dist kind %r (known: %s)" % (where, kind[:32], ", ".join(DIST_KINDS)))
    names = {"normal": ("mean", "std"), "uniform": ("lo", "hi"), "int": ("lo", "hi")}.get(kind)
    if names is None:
        return (kind, None, None)
    a = obj.get("a", obj.get(names[0]))
    b = obj.get("b", obj.get(names[1]))
    a = _number(a, where + ".dist." + names[0])
    b = _number(b, where + ".dist." + names[1])
    if kind == "int":
        if not (float(a).is_integer() and float(b).is_integer()) or a > b:
            raise BadRequest("%s: int dist bounds must be integers with lo <= hi" % where)
        a, b = int(a), int(b)
    elif kind == "uniform" and a > b:
        raise BadRequest("%s: uniform dist needs lo <= hi" % where)
    return (kind, a, b)


def _tensor(obj, where):
    if not isinstance(obj, dict):
        raise BadRequest("%s: must be an object" % where)
    name = _name(_field(obj, "name", str, where), where + ".name")
    dtype = _field(obj, "dtype", str, where)
    if dtype not in DTYPES:
        raise BadRequest("%s: unknown dtype %r (known: %s)" % (where, dtype[:32], ", ".join(DTYPES)))
    shape = _field(obj, "shape", list, where)
    if len(shape) > limits.MAX_RANK:
        raise BadRequest("%s: more than %d dimensions" % (where, limits.MAX_RANK))
    shape = [_int(d, where + ".shape", 0, limits.MAX_ELEMENTS) for d in shape]
    role = _field(obj, "role", str, where)
    if role not in ROLES:
        raise BadRequest("%s: role must be one of %s" % (where, ", ".join(ROLES)))
    spec = TensorSpec(name, dtype, shape, role, _dist(obj.get("dist"), dtype, where))
    if spec.numel() > limits.MAX_ELEMENTS:
        raise BadRequest("%s: more than %d elements" % (where, limits.MAX_ELEMENTS))
    return spec


def _scalar(obj, where):
    if not isinstance(obj, dict):
        raise BadRequest("%s: must be an object" % where)
    name = _name(_field(obj, "name", str, where), where + ".name")
    kind = _field(obj, "type", str, where)
    if kind not in SCALAR_TYPES:
        raise BadRequest("%s: unknown scalar type %r" % (where, kind[:32]))
    value = obj.get("value")
    if kind == "bool":
        if not isinstance(value, bool):
            raise BadRequest("%s: value must be a boolean" % where)
    elif kind.startswith(("i", "u")):
        if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) <= 20:
            value = int(value)
        lo, hi = {"i32": (-(1 << 31), (1 << 31) - 1), "u32": (0, (1 << 32) - 1),
                  "i64": (-(1 << 63), (1 << 63) - 1)}[kind]
        value = _int(value, where + ".value", lo, hi)
    else:
        value = float(_number(value, where + ".value"))
    return name, (kind, value)


def _case(obj, where):
    if not isinstance(obj, dict):
        raise BadRequest("%s: must be an object" % where)
    index = _int(obj.get("index"), where + ".index", 0, 1 << 31)
    label = _field(obj, "label", str, where, required=False, default="")
    perf = _field(obj, "perf", bool, where, required=False, default=False)
    tensors = _field(obj, "tensors", list, where)
    scalars = _field(obj, "scalars", list, where, required=False, default=[])
    if len(tensors) > limits.MAX_TENSORS or len(scalars) > limits.MAX_SCALARS:
        raise BadRequest("%s: too many tensors or scalars" % where)
    specs = [_tensor(t, "%s.tensors[%d]" % (where, i)) for i, t in enumerate(tensors)]
    values = dict(_scalar(s, "%s.scalars[%d]" % (where, i)) for i, s in enumerate(scalars))
    names = [t.name for t in specs] + [s.get("name") for s in scalars]
    if len(set(names)) != len(names):
        raise BadRequest("%s: tensor and scalar names must be distinct" % where)
    return Case(index, clean_text(label, limits.MAX_LABEL), perf, specs, values)


def _check_entry_names(entry, case, where):
    """Every name the entry uses must exist in the case, with the right role."""
    used = [a[1] for a in entry.args if a[0] == "name"] + [a[1] for a in entry.kwargs.values() if a[0] == "name"]
    for name in used:
        if case.tensor(name) is None and name not in case.scalars:
            raise BadRequest("%s: the entry names %r, which is no tensor or scalar of the case" % (where, name))
        if name in entry.made_by_entry:
            raise BadRequest("%s: %r is made by the entry and cannot also be passed" % (where, name))
    if entry.returns is not None:
        spec = case.tensor(entry.returns)
        if spec is None or spec.role != "out":
            raise BadRequest("%s: entry.returns %r is no out tensor of the case" % (where, entry.returns))
        if entry.returns in used:
            raise BadRequest("%s: entry.returns %r is also passed to the entry" % (where, entry.returns))
    for name in entry.made_by_entry:
        spec = case.tensor(name)
        if spec is None or spec.role != "in":
            raise BadRequest("%s: made_by_entry %r is no in tensor of the case" % (where, name))


def _trace(obj, req):
    req.source = _source(obj)
    req.device = _int(obj.get("device", 0), "device", 0, limits.MAX_DEVICE)
    req.problem = clean_text(_field(obj, "problem", str, "request", required=False, default=""), limits.MAX_NAME)
    timeout = obj.get("timeout_s", limits.DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= limits.MAX_TIMEOUT_S:
        raise BadRequest("\"timeout_s\" must be a number in (0, %d]" % limits.MAX_TIMEOUT_S)
    req.timeout_s = float(timeout)
    case_timeout = obj.get("case_timeout_s")
    if case_timeout is not None:
        if isinstance(case_timeout, bool) or not isinstance(case_timeout, (int, float)) or \
                not 0 < case_timeout <= limits.MAX_TIMEOUT_S:
            raise BadRequest("\"case_timeout_s\" must be a number in (0, %d]" % limits.MAX_TIMEOUT_S)
        req.case_timeout_s = float(case_timeout)
    req.entry = _entry(obj)
    cases = _field(obj, "cases", list, "request")
    if not cases or len(cases) > limits.MAX_CASES:
        raise BadRequest("\"cases\" must hold 1 to %d cases" % limits.MAX_CASES)
    req.cases = [_case(c, "cases[%d]" % i) for i, c in enumerate(cases)]
    for i, case in enumerate(req.cases):
        _check_entry_names(req.entry, case, "cases[%d]" % i)


def parse_request(line):
    """A Request from one line (bytes or str). Raises BadRequest."""
    if len(line) > limits.MAX_REQUEST_LINE:
        raise BadRequest("the request line is over %d bytes" % limits.MAX_REQUEST_LINE)
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise BadRequest("the request is not JSON: %s" % clean_text(str(e), 200)) from None
    if not isinstance(obj, dict):
        raise BadRequest("the request is not a JSON object")
    req_id = _id(obj)
    try:
        op = obj.get("op")
        if op not in OPS:
            raise BadRequest("unknown op %r (known: %s)" % (str(op)[:32], ", ".join(OPS)))
        req = Request(op, req_id)
        if op == "check":
            req.source = _source(obj)
        elif op == "trace":
            _trace(obj, req)
        return req
    except BadRequest as e:
        e.id = req_id
        raise
