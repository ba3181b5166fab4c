"""The exceptions of taskassign: the command line's exit statuses as Python classes."""


class Error(Exception):
    """A failure of taskassign (the base of InputError and NumericalError)."""


class InputError(Error, ValueError):
    """The request cannot be answered as asked (the command line's exit status 2): an
    unknown family, alpha <= 0, cutoffs out of order, a load no cutoffs can stabilise, a
    malformed claim. The message is the command line's one line."""


class NumericalError(Error, ArithmeticError):
    """A valid request the computation did not get through (the command line's exit
    status 3): a solver that did not converge, a result outside MPFR's range; an internal
    error (a bug) too, saying so. The message is the command line's one line."""
