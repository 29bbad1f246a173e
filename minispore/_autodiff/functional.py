"""Forward mode and Jacobians on the reverse walk: jvp, vjp, linearize, jacfwd, jacrev, hvp.

Forward mode is the transpose of reverse mode ("double vjp"): the VJP u -> J^T u is linear in
u, so recording it once with u as a fresh tracked leaf and walking that record back from a
tangent v gives J v. Every primitive's bprop is reused, nothing needs a JVP rule, and the result
is exact; it costs one forward, one recorded backward and one walk over that backward. A record
is walked as often as needed (`jacfwd`, `jacrev`, `linearize`, `vjp_fn`): the forward runs once.

Outside other transforms the forward is recorded on one tape and the VJP on a second one, so
the forward's values are constants there and the transposing walk touches only the backward.
Inside another transform (grad of jvp, jacfwd of jacrev) everything is recorded on that
transform's tape, so results can be differentiated again to any order.
"""
import numpy as np

from .._validator import check_bool, check_type
from ..common import _writes
from ..common.tensor import Tensor
from ..ops.operations import array_ops as A
from . import tape as _tape
from .engine import (_hook_leaves, _Session, _check_output, _flatten_outputs,
                     _normalize_positions, _normalize_weights, _result_grad, _stop, _target,
                     backward, check_weight_gradients, distinct)
from .tape import const, wrap

__all__ = ["jvp", "vjp", "linearize", "jacfwd", "jacrev", "hvp", "jet", "derivative"]


# ---- argument checks ----------------------------------------------------------------------------

_TENSORS = "a Tensor or a tuple or list of Tensors"


def _check_float_tensor(a, what, arg):
    check_type(a, Tensor, arg, what)
    if a._data.dtype.kind not in "fc":
        raise TypeError(f"For '{what}', the '{arg}' must be a floating-point Tensor (derivatives "
                        f"are defined for those only), but got dtype {a.dtype}")


def _as_inputs(inputs, what, name="inputs"):
    """(tuple of Tensors, single) from a Tensor or a tuple/list of Tensors."""
    if isinstance(inputs, Tensor):
        _check_float_tensor(inputs, what, name)
        return (inputs,), True
    check_type(inputs, (tuple, list), name, what, _TENSORS)
    if not inputs:
        raise ValueError(f"For '{what}', the '{name}' must not be empty")
    for k, a in enumerate(inputs):
        _check_float_tensor(a, what, f"{name}[{k}]")
    return tuple(inputs), False


def _as_tangents(v, args, what):
    """The tangents in `v`, one per input, each of its input's shape and dtype."""
    vs = (v,) if isinstance(v, Tensor) else tuple(check_type(v, (tuple, list), "v", what, _TENSORS))
    if len(vs) != len(args):
        raise ValueError(f"For '{what}', 'v' has invalid length: should be {len(args)} (one "
                         f"tangent per input), but got {len(vs)}")
    _check_like(vs, args, what, "v", "its input's")
    return vs


def _check_like(values, refs, what, arg, like):
    """Each of `values` (the elements of argument `arg`) a Tensor of its reference's shape and
    dtype."""
    for k, (v, r) in enumerate(zip(values, refs)):
        name = f"{arg}[{k}]"
        check_type(v, Tensor, name, what)
        if v._data.shape != r._data.shape:
            raise ValueError(f"For '{what}', the '{name}' must have {like} shape {r.shape}, but "
                             f"got {v.shape}")
        if v._data.dtype != r._data.dtype:
            raise TypeError(f"For '{what}', the '{name}' must have {like} dtype {r.dtype}, but "
                            f"got {v.dtype}")


def _as_cotangents(v, heads, what):
    """The cotangents passed to a vjp_fn, as separate arguments or one tuple/list, one per
    differentiated output, each of its output's shape and dtype."""
    if len(v) == 1 and isinstance(v[0], (tuple, list)):
        v = v[0]
    flat = []

    def gather(c):
        if isinstance(c, (tuple, list)):
            for x in c:
                gather(x)
        else:
            flat.append(c)
    gather(v)
    if len(flat) != len(heads):
        raise ValueError(f"For '{what}', vjp_fn needs one cotangent per output of the function "
                         f"({len(heads)}), but got {len(flat)}")
    _check_like(flat, heads, what, "cotangents", "its output's")
    return flat


def _check_positions(positions, args, what):
    for p in positions:
        if p >= len(args):
            raise ValueError(f"For '{what}', 'grad_position' {p} is out of range: the function "
                             f"was called with {len(args)} positional arguments")
        _check_float_tensor(args[p], what, f"args[{p}]")


def _jacobian(fn, grad_position, has_aux, what, compute):
    """The function `jacrev` and `jacfwd` return: their arguments checked at once, the
    positions against each call's arguments, then `compute(fn, args, kwargs, positions,
    has_aux, what)`."""
    fn = _target(fn, what)
    has_aux = check_bool(has_aux, "has_aux", what)
    if grad_position is None:
        raise TypeError(f"For '{what}', 'grad_position' must be an int or a tuple of ints, "
                        "but got None")
    positions, _ = _normalize_positions(grad_position, what)

    def jacobian_fn(*args, **kwargs):
        _check_positions(positions, args, what)
        with _writes.guarded():
            return compute(fn, args, kwargs, positions, has_aux, what)

    return jacobian_fn


def _aux(out):
    """MindSpore's aux value: the second output alone, or the tuple of all after the first."""
    return _stop(out[1]) if len(out) == 2 else _stop(tuple(out[1:]))


def _restructure(template, flat):
    """`flat` (Tensors in `_flatten_outputs` order) arranged like `template`."""
    it = iter(flat)

    def build(t):
        if isinstance(t, (tuple, list)):
            return type(t)(build(x) for x in t)
        return next(it)
    return build(template)


# ---- records ------------------------------------------------------------------------------------

class _Record:
    """A tape segment to walk back, as often as needed: the tape, where the segment starts and
    whether the tape is an outer transform's (shared)."""

    __slots__ = ("tape", "start", "shared")

    def __init__(self, tape, start, shared):
        self.tape, self.start, self.shared = tape, start, shared

    def tracked(self, t):
        return t._tape is self.tape.token

    def check_alive(self, what):
        # A record on an outer transform's tape is freed by that transform's own backward walk.
        if self.shared and self.tape.depth == 0:
            raise RuntimeError(f"For '{what}', the function returned by '{what}' was called "
                               "after the transform it was created in had finished; call it "
                               "inside that transform")

    def walk(self, roots, once=False, leaves=()):
        """Gradients per slot from a reverse walk over the segment. The record is kept for
        further walks unless `once` (and no outer transform needs it). Tensor hooks of the
        `leaves` slots run on their complete gradients, as `grad` runs them."""
        if once and not self.shared:
            with _tape.pause_recording():
                grads = backward(self.tape, self.start, roots, False)
        else:
            grads = backward(self.tape, self.start, roots, True)
        if leaves and self.tape.hooks:
            _hook_leaves(self.tape.hooks, grads, leaves, ())
        return grads


def _run_recorded_walk(fn, args, kwargs):
    """fn(*args, **kwargs) as the forward of a transform whose backward walk may be recorded
    (`_state.recorded_walk` counts it: jitted functions inside put eager's nodes on the tape)."""
    state = _tape._state
    state.recorded_walk += 1
    try:
        return fn(*args, **kwargs)
    finally:
        state.recorded_walk -= 1


class _Forward(_Record):
    """`fn` run once under a transform: its record, the slots of the tracked inputs and
    weights, the raw output and the differentiated outputs (heads)."""

    __slots__ = ("in_slots", "w_slots", "out", "heads")

    def __init__(self, fn, args, kwargs, positions, weights, has_aux, what):
        with _Session() as s:
            tape = s.tape
            call_args = list(args)
            in_slots = []
            for p in positions:
                w = s.track_input(args[p])
                call_args[p] = w
                in_slots.append(w._slot)
            self.w_slots = [s.track_param(w) for w in weights]
            start = len(tape.nodes)
            out = _run_recorded_walk(fn, call_args, kwargs)
            heads = _flatten_outputs(out, has_aux, what)
            for o in heads:
                _check_output(o, what)
            super().__init__(tape, start, s.outer is not None)
        self.in_slots, self.out, self.heads = in_slots, out, heads


class _Linear:
    """The VJP of a `_Forward`, recorded (in `rec`) as a function of fresh cotangent leaves
    `us`, one per head: `gs` holds, per tracked input, the recorded gradient J^T u (or None).
    Walking `rec` back from tangents v at the `gs` gives J v at the `us`."""

    __slots__ = ("fwd", "rec", "us", "gs")

    def __init__(self, fwd):
        self.fwd = fwd
        with _Session() as s:
            us = [s.track_input(const(np.ones(h._data.shape, h._data.dtype))) for h in fwd.heads]
            start = len(s.tape.nodes)
            grads = fwd.walk([(h._slot, u) for h, u in zip(fwd.heads, us) if fwd.tracked(h)])
            self.gs = [grads[sl] for sl in fwd.in_slots]
            self.rec = _Record(s.tape, start, s.outer is not None)
        self.us = us

    def live(self, i):
        """Whether input i's recorded gradient depends on the cotangents (else J is 0 there)."""
        g = self.gs[i]
        return g is not None and self.rec.tracked(g)

    def apply(self, tangents, once=False):
        """J v for tangents v (one per tracked input, None for zero), one Tensor per head."""
        roots = [(g._slot, t) for i, (g, t) in enumerate(zip(self.gs, tangents))
                 if t is not None and self.live(i)]
        grads = self.rec.walk(roots, once)
        return list(distinct([_result_grad(grads, u._slot, h._data)
                              for u, h in zip(self.us, self.fwd.heads)],
                             [t for t in tangents if t is not None]))


def _one_hot(k, shape, dtype):
    e = np.zeros(int(np.prod(shape)), dtype)
    e[k] = 1
    return wrap(e.reshape(shape))


# ---- jvp, vjp, linearize ------------------------------------------------------------------------

def jvp(fn, inputs, v, has_aux=False):
    """The Jacobian-vector product of `fn` at `inputs` along `v`, by forward mode.

    Args:
        fn (Union[Function, Cell]): a function of Tensors returning a Tensor or a tuple of them.
        inputs (Union[Tensor, tuple[Tensor], list[Tensor]]): the inputs to `fn`.
        v (Union[Tensor, tuple[Tensor], list[Tensor]]): the tangents, one per input, each of its
            input's shape and dtype.
        has_aux (bool): differentiate only the first output; the others are returned as `aux`
            (the second output alone, or a tuple of them), as if under `stop_gradient`.

    Returns:
        `(outputs, jvp_outputs)`, the second arranged like the first; with `has_aux`,
        `(output0, jvp0, aux)`. (One input may also be given as a 1-tuple, which MindSpore
        2.10 fails to compile.)

    Raises:
        TypeError: `inputs` or `v` not Tensors, non-float inputs, a tangent of another dtype.
        ValueError: `v` of another length than `inputs`, a tangent of another shape, `has_aux`
            with a single output.

    Computed as the transpose of the recorded VJP (no JVP rules): a forward, a recorded
    backward and a walk back over it, about 1-1.5 times a `value_and_grad` call.

    Example:
        >>> out, jv = jvp(lambda x: x ** 3, Tensor([1.0, 2.0]), Tensor([1.0, 1.0]))
        >>> jv
        Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  1.20000000e+01])
    """
    what = "jvp"
    fn = _target(fn, what)
    has_aux = check_bool(has_aux, "has_aux", what)
    args, _ = _as_inputs(inputs, what)
    tangents = _as_tangents(v, args, what)
    with _writes.guarded():  # a failed call rolls back in-place writes made by fn
        fwd = _Forward(fn, args, {}, range(len(args)), (), has_aux, what)
        jv = _Linear(fwd).apply(tangents, once=True)
    out = fwd.out
    if has_aux:
        return out[0], jv[0], _aux(out)
    return out, _restructure(out, jv)


def vjp(fn, *inputs, weights=None, has_aux=False):
    """The outputs of `fn(*inputs)` and a function computing vector-Jacobian products.

    Args:
        fn (Union[Function, Cell]): a function of Tensors returning a Tensor or a tuple of them.
        inputs (Tensor): the inputs to `fn`, all differentiated (floating point).
        weights (Union[Parameter, list[Parameter], ParameterTuple]): Parameters to
            differentiate as well. Default: None.
        has_aux (bool): differentiate only the first output; the others are returned as `aux`.

    Returns:
        `(outputs, vjp_fn)`, or `(output0, vjp_fn, aux)` with `has_aux`. `vjp_fn(*cotangents)`
        takes one cotangent per output (separately or as one tuple), each of its output's
        shape and dtype, and returns a tuple with one gradient per input, even for one input;
        with `weights`, `(input_gradients, weight_gradients)` (a bare Tensor for a single
        Parameter). `vjp_fn` may be called many times: the forward is recorded once and kept
        while `vjp_fn` lives (MindSpore reruns the forward on every call after the first).

    Raises:
        TypeError: a non-Tensor or non-float input, weights that are not Parameters,
            cotangents of the wrong type or dtype.
        ValueError: the wrong number or shapes of cotangents, `has_aux` with one output.
    """
    what = "vjp"
    fn = _target(fn, what)
    has_aux = check_bool(has_aux, "has_aux", what)
    for k, a in enumerate(inputs):
        _check_float_tensor(a, what, f"inputs[{k}]")
    weights, single_w = _normalize_weights(weights, what)
    with _writes.guarded():
        fwd = _Forward(fn, inputs, {}, range(len(inputs)), weights or (), has_aux, what)

    def vjp_fn(*cotangents):
        cots = _as_cotangents(cotangents, fwd.heads, what)
        fwd.check_alive(what)
        grads = fwd.walk([(h._slot, c) for h, c in zip(fwd.heads, cots) if fwd.tracked(h)],
                         leaves=fwd.in_slots + fwd.w_slots)
        check_weight_gradients(grads, fwd.w_slots, weights, what)
        n = len(inputs)
        mine = distinct([_result_grad(grads, sl, a._data) for sl, a in zip(fwd.in_slots, inputs)]
                        + [_result_grad(grads, sl, w._data)
                           for sl, w in zip(fwd.w_slots, weights or ())],
                        (*inputs, *(weights or ()), *cots))
        in_grads, w_grads = mine[:n], mine[n:]
        if weights is None:
            return in_grads
        return in_grads, (w_grads[0] if single_w else w_grads)

    out = fwd.out
    if has_aux:
        return out[0], vjp_fn, _aux(out)
    return out, vjp_fn


def linearize(fn, inputs):
    """The outputs of `fn(inputs)` and a function `jvp_fn(v)` giving the Jacobian-vector
    product along tangents `v` (a Tensor, or a tuple with one per input), arranged like the
    outputs. The forward and its VJP are recorded once; each `jvp_fn` call is one walk.

    Raises:
        TypeError, ValueError: as `jvp`.
    """
    what = "linearize"
    fn = _target(fn, what)
    args, _ = _as_inputs(inputs, what)
    with _writes.guarded():
        fwd = _Forward(fn, args, {}, range(len(args)), (), False, what)
        lin = _Linear(fwd)

    def jvp_fn(v):
        tangents = _as_tangents(v, args, what)
        lin.rec.check_alive(what)
        return _restructure(fwd.out, lin.apply(tangents))

    return fwd.out, jvp_fn


# ---- Jacobians ----------------------------------------------------------------------------------

def _stack_rows(rows, lead_shape, tail_shape, dtype, lead_last):
    """Jacobian block of shape lead_shape + tail_shape from rows[k] (one per element of the
    `lead` side, each of tail_shape). With `lead_last` the rows index the trailing axes."""
    if not rows:
        return const(np.zeros(tuple(tail_shape) + tuple(lead_shape) if lead_last else
                             tuple(lead_shape) + tuple(tail_shape), dtype))
    block = A.Stack(0)(rows)  # (n,) + tail_shape
    if lead_last:
        r = len(tail_shape)
        if r:
            block = A.transpose(block, tuple(range(1, r + 1)) + (0,))
        return A.reshape(block, tuple(tail_shape) + tuple(lead_shape))
    return A.reshape(block, tuple(lead_shape) + tuple(tail_shape))


def _jac_structure(blocks, out, has_aux):
    """MindSpore's nesting: blocks[j][p] for output j and position p; bare when one of each,
    a flat tuple when one side is single, else a tuple (outputs) of tuples (positions)."""
    n_out, n_pos = len(blocks), len(blocks[0])
    if n_out == 1 and n_pos == 1:
        jac = blocks[0][0]
    elif n_out == 1:
        jac = tuple(blocks[0])
    elif n_pos == 1:
        jac = tuple(b[0] for b in blocks)
    else:
        jac = tuple(tuple(b) for b in blocks)
    return (jac, _aux(out)) if has_aux else jac


def jacrev(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of `fn` by reverse mode: one VJP per output element
    over a single recorded forward (best when outputs are fewer than inputs).

    Args:
        fn (Union[Cell, Function]): a function of Tensors returning a Tensor or a tuple of them.
        grad_position (Union[int, tuple[int]]): the inputs to differentiate. Default: 0.
        has_aux (bool): differentiate only the first output and return `(jacobian, aux)`.

    The Jacobian of output `o` with respect to input `x` has shape `o.shape + x.shape` (the
    gradient for a scalar output) and the input's dtype. Several positions or outputs give
    tuples: one per position, one per output, or per output a tuple per position, as MindSpore
    nests them.

    Raises:
        TypeError: a non-Tensor or non-float argument at a position, non-float outputs.
        ValueError: negative, repeated or out-of-range positions; `has_aux` with one output.
    """
    return _jacobian(fn, grad_position, has_aux, "jacrev", _jacrev)


def _jacrev(fn, args, kwargs, positions, has_aux, what):
    fwd = _Forward(fn, args, kwargs, positions, (), has_aux, what)
    blocks = []
    for h in fwd.heads:
        hd = h._data
        rows = [[] for _ in positions]
        if fwd.tracked(h):
            for k in range(hd.size):
                grads = fwd.walk([(h._slot, _one_hot(k, hd.shape, hd.dtype))],
                                 leaves=fwd.in_slots)
                for r, sl, p in zip(rows, fwd.in_slots, positions):
                    r.append(_result_grad(grads, sl, args[p]._data))
        blocks.append([_stack_rows(r, hd.shape, args[p].shape, args[p]._data.dtype, False)
                       for r, p in zip(rows, positions)])
    return _jac_structure(blocks, fwd.out, has_aux)


def jacfwd(fn, grad_position=0, has_aux=False):
    """A function returning the Jacobian of `fn` by forward mode: one JVP per input element,
    walking a single recorded forward and VJP (best when inputs are fewer than outputs).

    Arguments, result structure and errors are those of `jacrev`. The Jacobian has the
    output's dtype (jacrev's has the input's).

    Example (a Hessian):
        >>> hessian = jacfwd(jacrev(f))
    """
    return _jacobian(fn, grad_position, has_aux, "jacfwd", _jacfwd)


def _jacfwd(fn, args, kwargs, positions, has_aux, what):
    fwd = _Forward(fn, args, kwargs, positions, (), has_aux, what)
    lin = _Linear(fwd)
    n = len(positions)
    cols = [[[] for _ in positions] for _ in fwd.heads]
    for i, p in enumerate(positions):
        a = args[p]._data
        if not lin.live(i):
            continue
        for k in range(a.size):
            tangents = [None] * n
            tangents[i] = _one_hot(k, a.shape, a.dtype)
            for j, col in enumerate(lin.apply(tangents)):
                cols[j][i].append(col)
    blocks = [[_stack_rows(cols[j][i], args[p].shape, h.shape, h._data.dtype, True)
               for i, p in enumerate(positions)] for j, h in enumerate(fwd.heads)]
    return _jac_structure(blocks, fwd.out, has_aux)


def hvp(fn, inputs, v):
    """The Hessian-vector product of a scalar function, by reverse over reverse.

    minispore only (MindSpore has no `hvp`; there one nests `grad`). H v is the gradient of
    <grad fn(x), v>: one forward, one recorded backward, and one walk back over both.

    Args:
        fn (Union[Function, Cell]): a function of Tensors returning one Tensor with one element.
        inputs (Union[Tensor, tuple[Tensor], list[Tensor]]): the point x.
        v (Union[Tensor, tuple[Tensor], list[Tensor]]): the vector, one Tensor per input, each
            of its input's shape and dtype.

    Returns:
        `(output, hvp_outputs)`: `fn(inputs)` and H v arranged like `inputs`.

    Raises:
        TypeError: non-Tensor or non-float inputs or vectors, a non-Tensor output.
        ValueError: `v` not matching `inputs`, an output with more than one element.

    Example:
        >>> _, hv = hvp(lambda x: (x ** 3).sum(), Tensor([1.0, 2.0]), Tensor([1.0, 0.0]))
        >>> hv   # diag(6 x) v
        Tensor(shape=[2], dtype=Float32, value= [ 6.00000000e+00,  0.00000000e+00])
    """
    what = "hvp"
    fn = _target(fn, what)
    args, single = _as_inputs(inputs, what)
    vs = _as_tangents(v, args, what)
    with _writes.guarded(), _Session() as s:
        tape = s.tape
        tracked = [s.track_input(a) for a in args]
        start = len(tape.nodes)
        out = _run_recorded_walk(fn, tracked, {})
        _check_output(out, what)
        if out._data.size != 1:
            raise ValueError(f"For '{what}', the function must return a single value (a Tensor "
                             f"with one element), but it returned shape {out.shape}")
        if out._tape is tape.token:
            # The first walk is recorded (this transform is active); the second one goes back
            # over it and over the forward.
            g = backward(tape, start, [(out._slot, const(np.ones_like(out._data)))], True)
            roots = [(g[t._slot]._slot, w) for t, w in zip(tracked, vs)
                     if g[t._slot] is not None and g[t._slot]._tape is tape.token]
            grads = _Record(tape, start, s.outer is not None).walk(roots, once=True)
        else:
            grads = [None] * tape.n_slots
        hv = tuple(_result_grad(grads, t._slot, a._data) for t, a in zip(tracked, args))
    return out, (hv[0] if single else hv)


# ---- Taylor mode ----------------------------------------------------------------------------------

def jet(fn, primals, series):
    """Taylor-mode derivatives: for the path x(t) = primals + sum_k series[k-1] t^k / k!
    (k = 1..K, K = series.shape[0]), returns `(fn(primals), d)` with d[k-1] = d^k/dt^k
    fn(x(t)) at t = 0, stacked on a new first axis. `primals` a Tensor, `series` a Tensor of
    shape (K,) + primals.shape (or tuples of them, one per argument). Computed by nesting
    forward-mode derivatives in t, so it costs about 2^K function evaluations."""
    single = isinstance(primals, Tensor)
    xs = (primals,) if single else tuple(primals)
    ss = (series,) if single else tuple(series)
    if len(xs) != len(ss) or not all(isinstance(t, Tensor) for t in xs + ss):
        raise TypeError("For 'jet', 'primals' and 'series' must be Tensors (or tuples of them, "
                        "one series per primal)")
    order = ss[0].shape[0] if ss[0].ndim else 0
    for x, s in zip(xs, ss):
        if s.shape != (order,) + x.shape:
            raise ValueError(f"For 'jet', a series must have shape (K,) + primal shape = "
                             f"({order},) + {x.shape}, but got {s.shape}")
    if order == 0:
        raise ValueError("For 'jet', 'series' must hold at least one term")
    dtype = xs[0]._data.dtype

    def path(t):
        args = []
        for x, s in zip(xs, ss):
            point, power = x, None
            for k in range(1, order + 1):
                power = t if power is None else power * t / k  # t^k / k!, no pow at t = 0
                point = point + s[k - 1] * power
            args.append(point)
        return fn(*args)

    def differentiated(f):
        return lambda t: jvp(f, t, Tensor(np.ones((), dtype)))[1]

    t0 = Tensor(np.zeros((), dtype))
    out, levels, f = fn(*xs), [], path
    for _ in range(order):
        f = differentiated(f)
        levels.append(f(t0))
    return out, A.Stack(0)(levels)


def derivative(fn, primals, order):
    """`(fn(primals), d)` with d the `order`-th derivative of fn along the direction of ones in
    every input (elementwise for an elementwise fn: f^(order)(x))."""
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"For 'derivative', 'order' must be a positive int, but got {order!r}")
    single = isinstance(primals, Tensor)
    xs = (primals,) if single else tuple(primals)
    series = tuple(wrap(np.concatenate([np.ones((1,) + x.shape, x._data.dtype),
                                        np.zeros((order - 1,) + x.shape, x._data.dtype)]))
                   for x in xs)
    out, d = jet(fn, primals, series[0] if single else series)
    return out, d[order - 1]
