"""check_grads: gradients against float64 central differences along random directions."""
import numpy as np

from .._autodiff.engine import value_and_grad
from .._autodiff.functional import jvp
from ..common.tensor import Tensor

__all__ = ["check_grads", "GradcheckError"]


class GradcheckError(AssertionError):
    """An analytic gradient disagrees with central differences."""


def _as_float64(args, diff):
    out = []
    for i, a in enumerate(args):
        if i in diff:
            arr = a.asnumpy() if isinstance(a, Tensor) else np.asarray(a)
            if arr.dtype != np.float64:
                raise TypeError(f"check_grads: argument {i} must be float64 (finite differences "
                                f"need it), got {arr.dtype}")
            out.append(arr.copy())
        else:
            out.append(a)
    return out


def _call(fn, arrays, diff):
    args = [Tensor(a) if i in diff else a for i, a in enumerate(arrays)]
    return fn(*args)


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _flat_outputs(item)]
    return [out]


def _inner(outs, cots):
    return sum(float(np.sum(o.asnumpy().astype(np.float64) * c)) for o, c in zip(outs, cots))


def _vjp_inner(fn, diff, cots, dirs):
    """A function x -> sum_i <VJP_i(x, cots), dirs_i>: the directional derivative's adjoint,
    itself differentiable (it is how order 2 is checked)."""
    positions = tuple(diff)

    def h(*args):
        outs = fn(*args)
        flat = _flat_outputs(outs)
        sens = tuple(Tensor(c.astype(o.asnumpy().dtype)) for o, c in zip(flat, cots))
        sens = sens if isinstance(outs, (tuple, list)) else sens[0]
        _, grads = value_and_grad(lambda *a: fn(*a), positions, sens_param=True)(*args, sens)
        grads = grads if isinstance(grads, tuple) else (grads,)
        total = None
        for g, d in zip(grads, dirs):
            term = (g * Tensor(d)).sum()
            total = term if total is None else total + term
        return total
    return h


def check_grads(fn, args, order=2, modes=("rev", "fwd"), eps=1e-6, rtol=1e-6, atol=1e-6,
                diff_argnums=None, seed=0):
    """Check the gradients of `fn` at `args` against central differences, in float64.

    For random directions u (one per differentiated argument) and a random cotangent v, the
    reverse-mode value <v, J u> = sum_i <VJP_i(v), u_i> must match
    <v, (f(x + eps u) - f(x - eps u)) / (2 eps)> within `atol + rtol * |numeric|`. With
    `order=2` the same check runs on x -> <VJP(x, v), w>, which tests gradients of gradients.

    Args:
        fn: a function of Tensors returning a Tensor (or a tuple of Tensors).
        args: its arguments; differentiated ones must be float64 Tensors or arrays.
        order (int): 1 or 2 (or more: each order checks the previous one's VJP).
        modes: "rev" checks reverse mode (VJPs), "fwd" forward mode (JVPs); both by default.
            minispore's forward mode transposes the VJP, so "fwd" needs a differentiable bprop
            (a primitive with first derivatives only raises a RuntimeError naming it).
        diff_argnums: positions to differentiate (default: every float64 Tensor argument).

    Raises:
        GradcheckError: naming the order, the argument and the element that disagrees most.
    """
    if diff_argnums is None:
        diff_argnums = [i for i, a in enumerate(args)
                        if isinstance(a, Tensor) and a.asnumpy().dtype == np.float64]
    diff = list(diff_argnums)
    if not diff:
        raise ValueError("check_grads: no float64 Tensor argument to differentiate")
    for mode in modes:
        if mode not in ("rev", "fwd"):
            raise ValueError(f"check_grads: unknown mode {mode!r}")
    rng = np.random.default_rng(seed)
    arrays = _as_float64(args, set(diff))
    current = fn
    for k in range(1, order + 1):
        cots = _check_once(current, arrays, diff, eps, rtol, atol, rng, k, modes)
        if k < order:
            dirs = [rng.standard_normal(arrays[i].shape) for i in diff]
            current = _vjp_inner(current, diff, cots, dirs)


def _check_once(fn, arrays, diff, eps, rtol, atol, rng, order, modes):
    dset = set(diff)
    out = _call(fn, arrays, dset)
    flat = _flat_outputs(out)
    for o in flat:
        if not isinstance(o, Tensor):
            raise TypeError(f"check_grads: the function must return Tensors, got {type(o).__name__}")
    cots = [rng.standard_normal(o.shape) for o in flat]
    dirs = [rng.standard_normal(arrays[i].shape) for i in diff]
    # Reverse mode: <v, J u> from the VJP.
    sens = tuple(Tensor(c.astype(o.asnumpy().dtype)) for o, c in zip(flat, cots))
    sens = sens if isinstance(out, (tuple, list)) else sens[0]
    args_t = [Tensor(a) if i in dset else a for i, a in enumerate(arrays)]
    _, grads = value_and_grad(fn, tuple(diff), sens_param=True)(*args_t, sens)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(diff, grads):
        if g.shape != arrays[i].shape:
            raise GradcheckError(f"order {order}: the gradient of argument {i} has shape "
                                 f"{g.shape}, expected {arrays[i].shape}")
    analytic = sum(float(np.sum(g.asnumpy() * d)) for g, d in zip(grads, dirs))
    numeric = _directional_fd(fn, arrays, diff, dirs, cots, eps)
    if not abs(analytic - numeric) <= atol + rtol * abs(numeric):
        worst = _worst_element(fn, arrays, diff, grads, cots, eps)
        raise GradcheckError(
            f"order {order} (reverse mode): <v, J u> = {analytic!r} analytically but "
            f"{numeric!r} by central differences (|diff| = {abs(analytic - numeric):.3g}); "
            f"{worst}")
    if "fwd" in modes:
        tangents = tuple(Tensor(d) for d in dirs)
        primals = tuple(Tensor(arrays[i]) for i in diff)

        def f_diff(*xs):
            full = list(args_t)
            for i, x in zip(diff, xs):
                full[i] = x
            return fn(*full)
        _, jv = jvp(f_diff, primals if len(primals) > 1 else primals[0],
                    tangents if len(tangents) > 1 else tangents[0])
        fwd = _inner(_flat_outputs(jv), cots)
        if not abs(fwd - numeric) <= atol + rtol * abs(numeric):
            raise GradcheckError(f"order {order} (forward mode): <v, J u> = {fwd!r} by jvp but "
                                 f"{numeric!r} by central differences")
    return cots


def _directional_fd(fn, arrays, diff, dirs, cots, eps):
    dset = set(diff)
    plus, minus = list(arrays), list(arrays)
    for i, d in zip(diff, dirs):
        plus[i] = arrays[i] + eps * d
        minus[i] = arrays[i] - eps * d
    fp = _flat_outputs(_call(fn, plus, dset))
    fm = _flat_outputs(_call(fn, minus, dset))
    return (_inner(fp, cots) - _inner(fm, cots)) / (2 * eps)


def _worst_element(fn, arrays, diff, grads, cots, eps):
    """Per-element central differences (only on failure) to name the worst element."""
    dset = set(diff)
    worst = (0.0, None, None, None, None)
    for i, g in zip(diff, grads):
        ga = g.asnumpy()
        for idx in np.ndindex(arrays[i].shape):
            plus, minus = list(arrays), list(arrays)
            plus[i] = arrays[i].copy()
            minus[i] = arrays[i].copy()
            plus[i][idx] += eps
            minus[i][idx] -= eps
            num = (_inner(_flat_outputs(_call(fn, plus, dset)), cots) -
                   _inner(_flat_outputs(_call(fn, minus, dset)), cots)) / (2 * eps)
            err = abs(float(ga[idx]) - num)
            if err >= worst[0]:
                worst = (err, i, idx, float(ga[idx]), num)
    err, i, idx, a, n = worst
    if i is None:
        return "no single element disagrees (an error spread over the input)"
    return f"worst at argument {i}, element {idx}: analytic {a!r}, numeric {n!r}"
