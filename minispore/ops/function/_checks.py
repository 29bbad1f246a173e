"""The argument check the functional ops share, below every family module (each imports it from
here, so none depends on another for it)."""
from ..._validator import check_type
from ...common.tensor import Tensor


def _tensor(x, op, arg="input"):
    """`x` unchanged; a TypeError in the validator's words unless it is a Tensor."""
    return check_type(x, Tensor, arg, op)
