"""A stand-in for torch, for the oracle's tests on a machine without it: CPU tensors held as
Python lists, with shapes, strides (views by transpose), dtypes and the few operations the
fixtures under tests/fixtures/sets/ use. Nothing here is torch's code or behaves like it beyond
that; the oracle on a GPU host uses the real torch."""

import ctypes
import random as _random
import struct

__version__ = "0.0+fake"
_rng = _random.Random(0)


class dtype:
    def __init__(self, name, size, fmt, is_float):
        self.name, self.itemsize, self.fmt, self.is_floating_point = name, size, fmt, is_float

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", 4, "f", True)
float16 = dtype("float16", 2, "e", True)
float64 = dtype("float64", 8, "d", True)
int32 = dtype("int32", 4, "i", False)
int64 = dtype("int64", 8, "q", False)
bool = dtype("bool", 1, "?", False)  # noqa: A001  (torch's own name)
float = float32  # noqa: A001
long = int64


def manual_seed(seed):
    _rng.seed(seed)


class _Cuda:
    @staticmethod
    def is_available():
        return False


cuda = _Cuda()


def _contig_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    return tuple(strides)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Tensor:
    def __init__(self, data, shape, dt=float32, device="cpu", strides=None, offset=0):
        self._data = data
        self.shape = tuple(shape)
        self.dtype = dt
        self.device = device
        self._strides = tuple(strides) if strides is not None else _contig_strides(self.shape)
        self._offset = offset
        self._buf = None

    # description
    def dim(self):
        return len(self.shape)

    def size(self, i=None):
        return self.shape if i is None else self.shape[i]

    def stride(self):
        return self._strides

    def storage_offset(self):
        return self._offset

    def numel(self):
        return _numel(self.shape)

    def element_size(self):
        return self.dtype.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_contiguous(self):
        return self._strides == _contig_strides(self.shape)

    def _index(self, flat):
        idx, rem = self._offset, flat
        for s, st in zip(reversed(self.shape), reversed(self._strides)):
            idx += (rem % s) * st
            rem //= s
        return idx

    def _values(self):
        return [self._data[self._index(i)] for i in range(self.numel())]

    # copies and views
    def detach(self):
        return self

    def clone(self):
        return Tensor(self._values(), self.shape, self.dtype, self.device)

    def contiguous(self):
        return self if self.is_contiguous() else self.clone()

    def to(self, device):
        return Tensor(self._values(), self.shape, self.dtype, str(device))

    def cpu(self):
        return self.to("cpu")

    def cuda(self):
        return self.to("cuda:0")

    def t(self):
        return Tensor(self._data, self.shape[::-1], self.dtype, self.device, self._strides[::-1], self._offset)

    def data_ptr(self):
        vals = self._values()
        self._buf = ctypes.create_string_buffer(struct.pack("<%d%s" % (len(vals), self.dtype.fmt), *vals) or b"\0")
        return ctypes.addressof(self._buf)

    # arithmetic
    def _map(self, other, f):
        if isinstance(other, Tensor):
            b = other._values()
            return Tensor([f(x, y) for x, y in zip(self._values(), b)], self.shape, self.dtype, self.device)
        return Tensor([f(x, other) for x in self._values()], self.shape, self.dtype, self.device)

    def __add__(self, o):
        return self._map(o, lambda x, y: x + y)

    def __mul__(self, o):
        return self._map(o, lambda x, y: x * y)

    __rmul__ = __mul__
    __radd__ = __add__

    def _set(self, vals):
        for i, v in enumerate(vals):
            self._data[self._index(i)] = v
        return self

    def add_(self, o):
        return self._set((self + o)._values())

    def mul_(self, o):
        return self._set((self * o)._values())

    def fill_(self, v):
        return self._set([v] * self.numel())


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def _make(gen, size, dtype=None, device="cpu"):
    shape = _shape(size)
    return Tensor([gen() for _ in range(_numel(shape))], shape, dtype or float32, str(device))


def rand(*size, dtype=None, device="cpu"):
    return _make(_rng.random, size, dtype, device)


def randn(*size, dtype=None, device="cpu"):
    return _make(lambda: _rng.gauss(0, 1), size, dtype, device)


def zeros(*size, dtype=None, device="cpu"):
    return _make(lambda: 0.0, size, dtype, device)


def ones(*size, dtype=None, device="cpu"):
    return _make(lambda: 1.0, size, dtype, device)


def empty(*size, dtype=None, device="cpu"):
    return zeros(*size, dtype=dtype, device=device)


def empty_like(t):
    return empty(t.shape, dtype=t.dtype, device=t.device)


def zeros_like(t):
    return zeros(t.shape, dtype=t.dtype, device=t.device)


class no_grad:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


from . import autograd, nn  # noqa: E402,F401  (torch.nn.Module, torch.autograd.Function)
