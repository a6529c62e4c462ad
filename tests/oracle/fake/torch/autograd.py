"""torch.autograd of the stand-in torch (tests/oracle/fake/torch): Function.apply calls forward."""


class Function:
    @classmethod
    def apply(cls, *args):
        return cls.forward(None, *args)
