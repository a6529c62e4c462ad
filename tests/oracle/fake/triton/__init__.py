"""A stand-in for triton, for the oracle's tests: kernels are defined and launched, and a launch
does nothing (the fixtures compute what the tests check with torch operations)."""

__version__ = "0.0+fake"


class JITFunction:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: JITFunction(f)
    return JITFunction(fn)


def autotune(configs=None, key=None, **kwargs):
    return lambda f: f


def heuristics(values):
    return lambda f: f


class Config:
    def __init__(self, kwargs, **more):
        self.kwargs = kwargs


def cdiv(a, b):
    return (a + b - 1) // b
