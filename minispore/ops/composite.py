"""`GradOperation`, MindSpore's older gradient API (`ops.GradOperation`, `C.GradOperation`)."""
from .._autodiff.engine import _differentiate, _normalize_weights, _split_sens
from .._validator import check_bool, check_callable
from ..common.tensor import Tensor

__all__ = ["GradOperation"]


class GradOperation:
    """`GradOperation(get_all=False, get_by_list=False, sens_param=False)(fn[, params])` returns
    a function computing gradients:

    - default: the gradient w.r.t. the first input (a Tensor);
    - `get_all`: a tuple with the gradient of every Tensor input (a 1-tuple for one input);
    - `get_by_list`: a tuple with the gradient of every Parameter in `params`;
    - both: `(input_gradients, parameter_gradients)`;
    - `sens_param`: the caller passes the output sensitivity as the last argument.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = check_bool(get_all, "get_all", "GradOperation")
        self.get_by_list = check_bool(get_by_list, "get_by_list", "GradOperation")
        self.sens_param = check_bool(sens_param, "sens_param", "GradOperation")

    def __call__(self, fn, weights=None):
        what = "GradOperation"
        check_callable(fn, "fn", what)
        if self.get_by_list:
            if weights is None:
                raise ValueError(f"For '{what}' with get_by_list=True, pass the parameters: "
                                 "GradOperation(get_by_list=True)(fn, params)")
            params, _ = _normalize_weights(
                tuple(weights) if not isinstance(weights, (list, tuple)) and
                hasattr(weights, "__iter__") else weights, what)
            if isinstance(weights, Tensor):
                params = (weights,)
        else:
            params = None
        get_all, sens_param = self.get_all, self.sens_param

        def grad_fn(*args, **kwargs):
            args, sens = _split_sens(args, sens_param, what)
            if get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            elif self.get_by_list:
                positions = None
            else:
                positions = (0,)
            _, in_grads, w_grads = _differentiate(fn, args, kwargs, positions, params, False, sens,
                                                  what)
            if get_all and params is not None:
                return in_grads, w_grads
            if get_all:
                return in_grads
            if params is not None:
                return w_grads
            return in_grads[0]

        return grad_fn
