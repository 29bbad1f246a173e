"""Optimizer-update primitives (ApplyMomentum, ApplyAdam-style, SparseApply*) that write Parameters in place under the version counters.

Each class takes MindSpore's constructor attributes and call inputs. A call checks every input
(types, dtypes, shapes, indices) before it writes anything, computes the update in NumPy in the
dtype the inputs promote to, writes the slots (`var`, `accum`, ...: Parameters or Tensors) in
place, and returns copies of the updated values, as MindSpore's documentation describes. None is
differentiable."""
import numpy as np

from ..._autodiff.tape import wrap
from ..._validator import check_bool, check_float, type_name
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..primitive import Primitive


def _number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


class _Update(Primitive):
    """A dense update: `_inputs` are the call's inputs, `_slots` the ones written in place,
    `_scalars` the ones that must hold one number, `_ints` integer inputs that take no part in the
    dtype promotion; `_returns` names the outputs (a name, or a tuple of names)."""

    differentiable = False
    _inputs = ()
    _slots = ()
    _scalars = ()
    _ints = ()
    _returns = ()
    _kinds = "f"
    _tuple_out = True

    def __init__(self):
        super().__init__()

    def __call__(self, *args):
        return self._run(args)

    def _run(self, args):
        values = self._bind(args)
        dtype = self._result_dtype(values)
        arrays = self._arrays(values, dtype)
        with np.errstate(all="ignore"):
            new = self._update(arrays)
        for name in self._slots:
            if name in new:
                self._write(values[name], new[name])
        outs = tuple(wrap(np.array(new[n] if n in new else arrays[n], dtype))
                     for n in self._output_names())
        return outs if self._tuple_out else outs[0]

    def _output_names(self):
        return self._returns if self._returns else self._slots

    # ---- checks -------------------------------------------------------------------------------

    def _bind(self, args):
        if len(args) != len(self._inputs):
            raise TypeError(f"For '{self.name}', the call takes {len(self._inputs)} inputs "
                            f"({', '.join(self._inputs)}), but got {len(args)}")
        values = dict(zip(self._inputs, args))
        for name, v in values.items():
            if name in self._slots:
                if not isinstance(v, Tensor):
                    raise TypeError(f"For '{self.name}', '{name}' must be a Parameter or Tensor, "
                                    f"but got {type_name(v)}")
            elif name in self._scalars or name in self._ints:
                if not (isinstance(v, Tensor) or _number(v)):
                    raise TypeError(f"For '{self.name}', '{name}' must be a number or a scalar "
                                    f"Tensor, but got {type_name(v)}")
            elif not isinstance(v, Tensor):
                raise TypeError(f"For '{self.name}', '{name}' must be a Tensor, but got "
                                f"{type_name(v)}")
        return values

    def _result_dtype(self, values):
        dtype = None
        for name, v in values.items():
            if isinstance(v, Tensor) and name not in self._ints:
                dtype = v._data.dtype if dtype is None else mstype.promote(dtype, v._data.dtype)
        if dtype.kind not in self._kinds:
            raise TypeError(f"For '{self.name}', the inputs must be floating-point Tensors, but "
                            f"got {mstype.from_np(dtype)}")
        for name in self._slots:
            got = values[name]._data.dtype
            if got != dtype:
                raise TypeError(f"For '{self.name}', data type conversion is not supported for "
                                f"'{name}', an input written in place: it is "
                                f"{mstype.from_np(got)}, but the inputs promote to "
                                f"{mstype.from_np(dtype)}")
        return dtype

    def _shape(self, values):
        return values[self._inputs[0]]._data.shape

    def _arrays(self, values, dtype):
        shape = self._shape(values)
        arrays = {}
        for name, v in values.items():
            a = v._data if isinstance(v, Tensor) else np.asarray(v)
            if name in self._scalars or name in self._ints:
                if a.size != 1 or a.ndim > 1:
                    raise ValueError(f"For '{self.name}', '{name}' must be a scalar, but got "
                                     f"shape {a.shape}")
                if name in self._ints:
                    if a.dtype.kind not in "iu":
                        raise TypeError(f"For '{self.name}', '{name}' must be an int32 or int64 "
                                        f"scalar, but got {a.dtype}")
                    arrays[name] = a.reshape(())
                    continue
                arrays[name] = a.reshape(()).astype(dtype)
            else:
                self._check_shape(name, a, shape)
                arrays[name] = a.astype(dtype, copy=True)
        return arrays

    def _check_shape(self, name, a, shape):
        if a.shape != shape:
            raise ValueError(f"For '{self.name}', '{name}' and '{self._inputs[0]}' must have the "
                             f"same shape, but got {a.shape} and {shape}")

    @staticmethod
    def _write(target, array):
        if isinstance(target, Parameter):
            target.assign_value(array)
        else:
            target[...] = wrap(np.asarray(array, target._data.dtype))


class _Sparse(_Update):
    """A row-sparse update: `grad` rows apply to the rows `indices` of the slots (duplicate
    indices are merged by summing their rows first). `_full_rows`: indices must cover var's
    first dim (grad then has var's shape)."""

    _ints = ("indices",)
    _full_rows = False

    def _arrays(self, values, dtype):
        indices = values["indices"]
        idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
        if not isinstance(indices, Tensor) or idx.dtype.kind not in "iu":
            raise TypeError(f"For '{self.name}', 'indices' must be an int32 or int64 Tensor, but "
                            f"got {type_name(indices) if not isinstance(indices, Tensor) else idx.dtype}")
        shape = self._shape(values)
        g = values[self._grad]._data
        if not shape:
            raise ValueError(f"For '{self.name}', '{self._inputs[0]}' must have rank >= 1")
        if idx.ndim != 1 or g.shape != (idx.shape[0],) + shape[1:]:
            raise ValueError(f"For '{self.name}', 'indices' must be 1-D and '{self._grad}' of shape "
                             f"(len(indices),) + {shape[1:]}, but got {idx.shape} and {g.shape}")
        if self._full_rows and idx.shape[0] != shape[0]:
            raise ValueError(f"For '{self.name}', 'indices' must have {shape[0]} entries (the "
                             f"first dim of '{self._inputs[0]}'), but got {idx.shape[0]}")
        if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
            raise ValueError(f"For '{self.name}', 'indices' must be in [0, {shape[0]}), but got "
                             f"{idx.tolist()}")
        rest = {k: v for k, v in values.items() if k not in ("indices", self._grad)}
        arrays = super()._arrays(rest, dtype)
        rows, inverse = np.unique(idx, return_inverse=True)
        merged = np.zeros((rows.size,) + shape[1:], dtype)
        np.add.at(merged, inverse.reshape(-1), g.astype(dtype))
        arrays["indices"], arrays[self._grad] = rows, merged
        return arrays

    _grad = "grad"

    def _update(self, a):
        rows = a["indices"]
        picked = {k: (v[rows] if k in self._slots else v) for k, v in a.items()}
        new_rows = self._rows(picked)
        new = {}
        for name, value in new_rows.items():
            full = a[name].copy()
            full[rows] = value
            new[name] = full
        return new


# ---- shared formulas -------------------------------------------------------------------------------

def _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, shrinkage=None):
    accum_new = accum + grad * grad
    g = grad if shrinkage is None else grad + 2 * shrinkage * var
    sigma = (accum_new ** -lr_power - accum ** -lr_power) / lr
    linear = linear + g - sigma * var
    quadratic = accum_new ** -lr_power / lr + 2 * l2
    var = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0)
    return var.astype(accum.dtype), accum_new, linear


def _proximal(prox, lr, l1, l2):
    shrunk = np.maximum(np.abs(prox) - lr * l1, 0)
    return np.sign(prox) * shrunk / (1 + lr * l2)


def _adam_step(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, nesterov):
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    direction = m * beta1 + (1 - beta1) * grad if nesterov else m
    return var - lr_t * direction / (np.sqrt(v) + epsilon), m, v


# ---- dense updates ---------------------------------------------------------------------------------

class ApplyMomentum(_Update):
    """`ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable,
    accumulation, learning_rate, gradient, momentum)`: accumulation = momentum * accumulation +
    gradient; variable -= learning_rate * accumulation (Nesterov: learning_rate * (gradient +
    momentum * accumulation)). Returns variable."""

    _inputs = ("variable", "accumulation", "learning_rate", "gradient", "momentum")
    _slots = ("variable", "accumulation")
    _scalars = ("learning_rate", "momentum")
    _returns = ("variable",)
    _kinds = "fiuc"
    _tuple_out = False

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        super().__init__()
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.name)
        self.use_locking = check_bool(use_locking, "use_locking", self.name)
        self.gradient_scale = check_float(gradient_scale, "gradient_scale", self.name)

    def _update(self, a):
        accum = a["accumulation"] * a["momentum"] + a["gradient"]
        lr = a["learning_rate"]
        if self.use_nesterov:
            var = a["variable"] - (a["gradient"] * lr + accum * a["momentum"] * lr)
        else:
            var = a["variable"] - lr * accum
        return {"variable": var, "accumulation": accum}


class ApplyGradientDescent(_Update):
    """`ApplyGradientDescent()(var, alpha, delta)`: var -= alpha * delta. Returns var."""

    _inputs = ("var", "alpha", "delta")
    _slots = ("var",)
    _scalars = ("alpha",)
    _tuple_out = False

    def _update(self, a):
        return {"var": a["var"] - a["alpha"] * a["delta"]}


class ApplyProximalGradientDescent(_Update):
    """`ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)`: the FOBOS step
    prox = var - alpha * delta; var = sign(prox) * max(|prox| - alpha * l1, 0) /
    (1 + alpha * l2). Returns var."""

    _inputs = ("var", "alpha", "l1", "l2", "delta")
    _slots = ("var",)
    _scalars = ("alpha", "l1", "l2")
    _tuple_out = False

    def _update(self, a):
        prox = a["var"] - a["alpha"] * a["delta"]
        return {"var": _proximal(prox, a["alpha"], a["l1"], a["l2"])}


class ApplyAdagrad(_Update):
    """`ApplyAdagrad(update_slots=True)(var, accum, lr, grad)`: accum += grad^2 (when
    update_slots); var -= lr * grad / sqrt(accum). Returns (var, accum)."""

    _inputs = ("var", "accum", "lr", "grad")
    _slots = ("var", "accum")
    _scalars = ("lr",)
    _kinds = "fc"
    _epsilon = 0.0

    def __init__(self, update_slots=True):
        super().__init__()
        self.update_slots = check_bool(update_slots, "update_slots", self.name)

    def _update(self, a):
        accum = a["accum"] + a["grad"] * a["grad"] if self.update_slots else a["accum"]
        var = a["var"] - a["lr"] * a["grad"] / (np.sqrt(accum) + self._epsilon)
        return {"var": var, "accum": accum}


class ApplyAdagradV2(ApplyAdagrad):
    """`ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad)`: as ApplyAdagrad with
    var -= lr * grad / (sqrt(accum) + epsilon)."""

    _kinds = "f"

    def __init__(self, epsilon, update_slots=True):
        super().__init__(update_slots)
        self.epsilon = check_float(epsilon, "epsilon", self.name)

    @property
    def _epsilon(self):
        return self.epsilon


class ApplyProximalAdagrad(_Update):
    """`ApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad)`: accum +=
    grad^2; with lr_t = lr / sqrt(accum), prox = var - lr_t * grad and var = sign(prox) *
    max(|prox| - lr_t * l1, 0) / (1 + lr_t * l2) (the rate that scales the gradient also scales
    the penalties, as MindSpore's kernel). Returns (var, accum)."""

    _inputs = ("var", "accum", "lr", "l1", "l2", "grad")
    _slots = ("var", "accum")
    _scalars = ("lr", "l1", "l2")

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _update(self, a):
        accum = a["accum"] + a["grad"] * a["grad"]
        lr = a["lr"] / np.sqrt(accum)
        prox = a["var"] - lr * a["grad"]
        return {"var": _proximal(prox, lr, a["l1"], a["l2"]), "accum": accum}


class ApplyAdadelta(_Update):
    """`ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)`: accum = rho * accum +
    (1 - rho) * grad^2; update = sqrt(accum_update + epsilon) * grad / sqrt(accum + epsilon);
    accum_update = rho * accum_update + (1 - rho) * update^2; var -= lr * update. Returns
    (var, accum, accum_update)."""

    _inputs = ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad")
    _slots = ("var", "accum", "accum_update")
    _scalars = ("lr", "rho", "epsilon")

    def _update(self, a):
        return _adadelta(a["var"], a["accum"], a["accum_update"], a["lr"], a["rho"],
                         a["epsilon"], a["grad"])


def _adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    accum = rho * accum + (1 - rho) * grad * grad
    update = np.sqrt(accum_update + epsilon) * grad / np.sqrt(accum + epsilon)
    accum_update = rho * accum_update + (1 - rho) * update * update
    return {"var": var - lr * update, "accum": accum, "accum_update": accum_update}


class ApplyAdaMax(_Update):
    """`ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)`: m = beta1 * m +
    (1 - beta1) * grad; v = max(beta2 * v, |grad|); var -= lr / (1 - beta1_power) * m / (v +
    epsilon). Returns (var, m, v)."""

    _inputs = ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad")
    _slots = ("var", "m", "v")
    _scalars = ("beta1_power", "lr", "beta1", "beta2", "epsilon")

    def _update(self, a):
        g = a["grad"]
        m = a["beta1"] * a["m"] + (1 - a["beta1"]) * g
        v = np.maximum(a["beta2"] * a["v"], np.abs(g))
        var = a["var"] - a["lr"] / (1 - a["beta1_power"]) * m / (v + a["epsilon"])
        return {"var": var, "m": m, "v": v}


class ApplyAdagradDA(_Update):
    """`ApplyAdagradDA(use_locking=False)(var, gradient_accumulator,
    gradient_squared_accumulator, grad, lr, l1, l2, global_step)`: the accumulators add grad and
    grad^2; var = -lr * shrink(gradient_accumulator) / (l2 * global_step * lr +
    sqrt(gradient_squared_accumulator)), shrink(x) = sign(x) max(|x| - l1 * global_step, 0) when
    l1 > 0. Returns (var,)."""

    _inputs = ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1",
               "l2", "global_step")
    _slots = ("var", "gradient_accumulator", "gradient_squared_accumulator")
    _scalars = ("lr", "l1", "l2")
    _ints = ("global_step",)
    _returns = ("var",)

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _update(self, a):
        g = a["grad"]
        step = a["global_step"].astype(g.dtype)
        acc = a["gradient_accumulator"] + g
        sq = a["gradient_squared_accumulator"] + g * g
        l1 = a["l1"]
        tmp = np.sign(acc) * np.maximum(np.abs(acc) - l1 * step, 0) if l1 > 0 else acc
        var = -a["lr"] * tmp / (a["l2"] * step * a["lr"] + np.sqrt(sq))
        return {"var": var, "gradient_accumulator": acc, "gradient_squared_accumulator": sq}


class ApplyAdamWithAmsgrad(_Update):
    """`ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False)(var, m, v,
    vhat, beta1_power, beta2_power, lr, grad)`: Adam's moments, vhat = max(vhat, v), var -=
    lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(vhat) + epsilon). Returns
    (var, m, v, vhat)."""

    _inputs = ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "grad")
    _slots = ("var", "m", "v", "vhat")
    _scalars = ("beta1_power", "beta2_power", "lr")

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False):
        super().__init__()
        self.beta1 = check_float(beta1, "beta1", self.name)
        self.beta2 = check_float(beta2, "beta2", self.name)
        self.epsilon = check_float(epsilon, "epsilon", self.name)
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _hyper(self, a):
        return self.beta1, self.beta2, self.epsilon

    def _update(self, a):
        beta1, beta2, epsilon = self._hyper(a)
        g = a["grad"]
        m = beta1 * a["m"] + (1 - beta1) * g
        v = beta2 * a["v"] + (1 - beta2) * g * g
        vhat = np.maximum(a["vhat"], v)
        lr_t = a["lr"] * np.sqrt(1 - a["beta2_power"]) / (1 - a["beta1_power"])
        var = a["var"] - lr_t * m / (np.sqrt(vhat) + epsilon)
        return {"var": var, "m": m, "v": v, "vhat": vhat}


class ApplyAdamWithAmsgradV2(ApplyAdamWithAmsgrad):
    """`ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, beta2_power, lr,
    beta1, beta2, epsilon, grad)`: ApplyAdamWithAmsgrad with the rates as inputs."""

    _inputs = ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
               "epsilon", "grad")
    _scalars = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")

    def __init__(self, use_locking=False):
        Primitive.__init__(self)
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _hyper(self, a):
        return a["beta1"], a["beta2"], a["epsilon"]


class ApplyAddSign(_Update):
    """`ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)`: m = beta * m + (1 - beta) *
    grad; var -= lr * (alpha + sign_decay * sign(grad) * sign(m)) * grad. Returns (var, m)."""

    _inputs = ("var", "m", "lr", "alpha", "sign_decay", "beta", "grad")
    _slots = ("var", "m")
    _scalars = ("lr", "alpha", "sign_decay", "beta")

    def _scale(self, a, signs):
        return a["alpha"] + a["sign_decay"] * signs

    def _update(self, a):
        g = a["grad"]
        m = a["beta"] * a["m"] + (1 - a["beta"]) * g
        var = a["var"] - a["lr"] * self._scale(a, np.sign(g) * np.sign(m)) * g
        return {"var": var, "m": m}


class ApplyPowerSign(ApplyAddSign):
    """`ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad)`: m as ApplyAddSign;
    var -= lr * exp(logbase * sign_decay * sign(grad) * sign(m)) * grad. Returns (var, m)."""

    _inputs = ("var", "m", "lr", "logbase", "sign_decay", "beta", "grad")
    _scalars = ("lr", "logbase", "sign_decay", "beta")

    def _scale(self, a, signs):
        return np.exp(a["logbase"] * a["sign_decay"] * signs)


class ApplyRMSProp(_Update):
    """`ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, grad, decay,
    momentum, epsilon)`: mean_square = decay * mean_square + (1 - decay) * grad^2; moment =
    momentum * moment + learning_rate * grad / sqrt(mean_square + epsilon); var -= moment.
    Returns var (MindSpore 2.10's CPU kernel returns zeros there)."""

    _inputs = ("var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum",
               "epsilon")
    _slots = ("var", "mean_square", "moment")
    _scalars = ("learning_rate", "decay", "momentum", "epsilon")
    _returns = ("var",)
    _tuple_out = False

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _update(self, a):
        return _rmsprop(a["var"], a["mean_square"], a["moment"], a["learning_rate"], a["grad"],
                        a["decay"], a["momentum"], a["epsilon"])


def _rmsprop(var, ms, mom, lr, grad, decay, momentum, epsilon, mean_gradient=None):
    ms = decay * ms + (1 - decay) * grad * grad
    denominator = ms + epsilon
    out = {}
    if mean_gradient is not None:
        mean_gradient = decay * mean_gradient + (1 - decay) * grad
        denominator = denominator - mean_gradient * mean_gradient
        out["mean_gradient"] = mean_gradient
    mom = momentum * mom + lr * grad / np.sqrt(denominator)
    out.update(var=var - mom, mean_square=ms, moment=mom)
    return out


class ApplyCenteredRMSProp(ApplyRMSProp):
    """`ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, moment, grad,
    learning_rate, decay, momentum, epsilon)`: ApplyRMSProp normalised by the centred second
    moment mean_square - mean_gradient^2, mean_gradient = decay * mean_gradient + (1 - decay) *
    grad. Returns var (MindSpore 2.10's CPU kernel returns zeros there)."""

    _inputs = ("var", "mean_gradient", "mean_square", "moment", "grad", "learning_rate", "decay",
               "momentum", "epsilon")
    _slots = ("var", "mean_gradient", "mean_square", "moment")

    def _update(self, a):
        return _rmsprop(a["var"], a["mean_square"], a["moment"], a["learning_rate"], a["grad"],
                        a["decay"], a["momentum"], a["epsilon"], a["mean_gradient"])


class ApplyFtrl(_Update):
    """`ApplyFtrl(use_locking=False)(var, accum, linear, grad, lr, l1, l2, lr_power)`: the
    FTRL-proximal step (accum += grad^2; linear += grad - (accum_new^-lr_power -
    accum^-lr_power) / lr * var; var = (sign(linear) * l1 - linear) / (accum_new^-lr_power / lr +
    2 * l2) where |linear| > l1, else 0). Returns var."""

    _inputs = ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power")
    _slots = ("var", "accum", "linear")
    _scalars = ("lr", "l1", "l2", "lr_power")
    _returns = ("var",)
    _tuple_out = False

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _update(self, a):
        var, accum, linear = _ftrl(a["var"], a["accum"], a["linear"], a["grad"], a["lr"],
                                   a["l1"], a["l2"], a["lr_power"])
        return {"var": var, "accum": accum, "linear": linear}


class ApplyKerasMomentum(_Update):
    """`ApplyKerasMomentum(use_locking=False, use_nesterov=False)(var, accum, lr, grad,
    momentum)`: accum = accum * momentum - grad * lr; var += accum (Nesterov: var += accum *
    momentum - grad * lr). Returns (var, accum). MindSpore 2.10 has no CPU kernel for it."""

    _inputs = ("var", "accum", "lr", "grad", "momentum")
    _slots = ("var", "accum")
    _scalars = ("lr", "momentum")

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.name)

    def _update(self, a):
        step = a["grad"] * a["lr"]
        accum = a["accum"] * a["momentum"] - step
        var = a["var"] + (accum * a["momentum"] - step if self.use_nesterov else accum)
        return {"var": var, "accum": accum}


class Adam(_Update):
    """`Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr,
    beta1, beta2, epsilon, gradient)`: m, v the moving moments of gradient and gradient^2; var
    -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon) (Nesterov:
    beta1 * m + (1 - beta1) * gradient for m). Returns (var, m, v), the updated values
    (MindSpore 2.10's CPU kernel returns other numbers there)."""

    _inputs = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
               "gradient")
    _slots = ("var", "m", "v")
    _scalars = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.name)

    def _update(self, a):
        var, m, v = _adam_step(a["var"], a["m"], a["v"], a["beta1_power"], a["beta2_power"],
                               a["lr"], a["beta1"], a["beta2"], a["epsilon"], a["gradient"],
                               self.use_nesterov)
        return {"var": var, "m": m, "v": v}


class AdamNoUpdateParam(Adam):
    """`AdamNoUpdateParam(use_locking=False, use_nesterov=False)(m, v, beta1_power, beta2_power,
    lr, beta1, beta2, epsilon, gradient)`: Adam's moments updated in place; returns the step to
    add to the parameter, -lr_t * m / (sqrt(v) + epsilon)."""

    _inputs = ("m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
               "gradient")
    _slots = ("m", "v")
    _returns = ("step",)
    _tuple_out = False

    def _update(self, a):
        zero = np.zeros_like(a["m"])
        step, m, v = _adam_step(zero, a["m"], a["v"], a["beta1_power"], a["beta2_power"],
                                a["lr"], a["beta1"], a["beta2"], a["epsilon"], a["gradient"],
                                self.use_nesterov)
        return {"step": step, "m": m, "v": v}


class AdamWeightDecay(_Update):
    """`AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay,
    gradient)`: m, v the moving moments (no bias correction); var -= lr * (m / (sqrt(v) +
    epsilon) + decay * var). Returns (var, m, v), the updated values (MindSpore 2.10's CPU kernel
    returns zeros there)."""

    _inputs = ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient")
    _slots = ("var", "m", "v")
    _scalars = ("lr", "beta1", "beta2", "epsilon", "decay")

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        return self._run((var, m, v, lr, beta1, beta2, epsilon, decay, gradient))

    def _update(self, a):
        g = a["gradient"]
        m = a["beta1"] * a["m"] + (1 - a["beta1"]) * g
        v = a["beta2"] * a["v"] + (1 - a["beta2"]) * g * g
        update = m / (np.sqrt(v) + a["epsilon"]) + a["decay"] * a["var"]
        return {"var": a["var"] - a["lr"] * update, "m": m, "v": v}


class SGD(_Update):
    """`SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient,
    learning_rate, accum, momentum, stat)`: g = gradient + weight_decay * parameters; accum = g
    where stat > 0 (the first step), else momentum * accum + (1 - dampening) * g; parameters -=
    learning_rate * accum (Nesterov: learning_rate * (g + momentum * accum)); stat becomes 0.
    Returns parameters."""

    _inputs = ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat")
    _slots = ("parameters", "accum", "stat")
    _scalars = ("learning_rate", "momentum")
    _returns = ("parameters",)
    _tuple_out = False

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__()
        self.dampening = check_float(dampening, "dampening", self.name)
        self.weight_decay = check_float(weight_decay, "weight_decay", self.name)
        self.nesterov = check_bool(nesterov, "nesterov", self.name)
        if self.nesterov and self.dampening != 0:
            raise ValueError(f"For '{self.name}', Nesterov momentum needs 'dampening' 0, but got "
                             f"{dampening}")

    def _update(self, a):
        p = a["parameters"]
        g = a["gradient"] + self.weight_decay * p if self.weight_decay else a["gradient"]
        accum = np.where(a["stat"] > 0, g, a["momentum"] * a["accum"] + (1 - self.dampening) * g)
        step = g + a["momentum"] * accum if self.nesterov else accum
        return {"parameters": p - a["learning_rate"] * step, "accum": accum,
                "stat": np.zeros_like(a["stat"])}


class LARSUpdate(_Update):
    """`LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, gradient, norm_weight,
    norm_gradient, weight_decay, learning_rate)`: the layer-wise scaled gradient
    coeff * (gradient + weight_decay * weight), coeff = hyperpara * sqrt(norm_weight) /
    (sqrt(norm_gradient) + weight_decay * sqrt(norm_weight) + epsilon), with `use_clip`
    clipped as min(max(coeff / learning_rate, 0), 1); the norms are sums of squares. Writes
    nothing. MindSpore 2.10 has no CPU kernel for it."""

    _inputs = ("weight", "gradient", "norm_weight", "norm_gradient", "weight_decay",
               "learning_rate")
    _scalars = ("norm_weight", "norm_gradient", "weight_decay", "learning_rate")
    _returns = ("out",)
    _tuple_out = False

    def __init__(self, epsilon=1e-05, hyperpara=0.001, use_clip=False):
        super().__init__()
        self.epsilon = check_float(epsilon, "epsilon", self.name)
        self.hyperpara = check_float(hyperpara, "hyperpara", self.name)
        self.use_clip = check_bool(use_clip, "use_clip", self.name)

    def _update(self, a):
        w_norm, g_norm = np.sqrt(a["norm_weight"]), np.sqrt(a["norm_gradient"])
        decay = a["weight_decay"]
        coeff = self.hyperpara * w_norm / (g_norm + decay * w_norm + self.epsilon)
        if self.use_clip:
            coeff = np.clip(coeff / a["learning_rate"], 0, 1)
        return {"out": coeff * (a["gradient"] + decay * a["weight"])}


# ---- sparse updates ----------------------------------------------------------------------------

class SparseApplyAdagrad(_Sparse):
    """`SparseApplyAdagrad(lr, update_slots=True, use_locking=False)(var, accum, grad, indices)`:
    ApplyAdagrad on the rows `indices`. Returns (var, accum)."""

    _inputs = ("var", "accum", "grad", "indices")
    _slots = ("var", "accum")

    def __init__(self, lr, update_slots=True, use_locking=False):
        super().__init__()
        self.lr = check_float(lr, "lr", self.name)
        self.update_slots = check_bool(update_slots, "update_slots", self.name)
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    _epsilon = 0.0

    def _rows(self, a):
        g = a["grad"]
        accum = a["accum"] + g * g if self.update_slots else a["accum"]
        return {"var": a["var"] - self.lr * g / (np.sqrt(accum) + self._epsilon), "accum": accum}


class SparseApplyAdagradV2(SparseApplyAdagrad):
    """`SparseApplyAdagradV2(lr, epsilon, use_locking=False, update_slots=True)(var, accum, grad,
    indices)`: ApplyAdagradV2 on the rows `indices`. Returns (var, accum)."""

    def __init__(self, lr, epsilon, use_locking=False, update_slots=True):
        super().__init__(lr, update_slots, use_locking)
        self.epsilon = check_float(epsilon, "epsilon", self.name)

    @property
    def _epsilon(self):
        return self.epsilon


class SparseApplyProximalAdagrad(_Sparse):
    """`SparseApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)`:
    ApplyProximalAdagrad on the rows `indices`. Returns (var, accum). MindSpore 2.10 has no CPU
    kernel for it."""

    _inputs = ("var", "accum", "lr", "l1", "l2", "grad", "indices")
    _slots = ("var", "accum")
    _scalars = ("lr", "l1", "l2")

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _rows(self, a):
        return ApplyProximalAdagrad._update(self, a)


class FusedSparseProximalAdagrad(SparseApplyProximalAdagrad):
    """`FusedSparseProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)`:
    the rows of duplicate indices summed, then SparseApplyProximalAdagrad. Returns (var,
    accum)."""


class SparseApplyRMSProp(_Sparse):
    """`SparseApplyRMSProp(rho, momentum, epsilon, use_locking=False)(var, ms, mom, lr, grad,
    indices)`: ApplyRMSProp (decay rho) on the rows `indices`. Returns (var, ms, mom)."""

    _inputs = ("var", "ms", "mom", "lr", "grad", "indices")
    _slots = ("var", "ms", "mom")
    _scalars = ("lr",)
    _full_rows = True

    def __init__(self, rho, momentum, epsilon, use_locking=False):
        super().__init__()
        self.rho = check_float(rho, "rho", self.name)
        self.momentum = check_float(momentum, "momentum", self.name)
        self.epsilon = check_float(epsilon, "epsilon", self.name)
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _rows(self, a):
        out = _rmsprop(a["var"], a["ms"], a["mom"], a["lr"], a["grad"], self.rho, self.momentum,
                       self.epsilon)
        return {"var": out["var"], "ms": out["mean_square"], "mom": out["moment"]}


class SparseApplyAdadelta(_Sparse):
    """`SparseApplyAdadelta(epsilon, use_locking=False)(var, accum, accum_update, lr, rho, grad,
    indices)`: ApplyAdadelta on the rows `indices`. Returns (var, accum, accum_update).
    MindSpore 2.10 has no CPU kernel for it."""

    _inputs = ("var", "accum", "accum_update", "lr", "rho", "grad", "indices")
    _slots = ("var", "accum", "accum_update")
    _scalars = ("lr", "rho")
    _full_rows = True

    def __init__(self, epsilon, use_locking=False):
        super().__init__()
        self.epsilon = check_float(epsilon, "epsilon", self.name)
        if self.epsilon < 0:
            raise ValueError(f"For '{self.name}', 'epsilon' must be non-negative, but got "
                             f"{epsilon}")
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _rows(self, a):
        return _adadelta(a["var"], a["accum"], a["accum_update"], a["lr"], a["rho"],
                         self.epsilon, a["grad"])


class SparseApplyFtrl(_Sparse):
    """`SparseApplyFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad,
    indices)`: ApplyFtrl on the rows `indices`. Returns (var, accum, linear)."""

    _inputs = ("var", "accum", "linear", "grad", "indices")
    _slots = ("var", "accum", "linear")
    _shrinkage = None

    def __init__(self, lr, l1, l2, lr_power, use_locking=False):
        super().__init__()
        self.lr = check_float(lr, "lr", self.name)
        self.l1 = check_float(l1, "l1", self.name)
        self.l2 = check_float(l2, "l2", self.name)
        self.lr_power = check_float(lr_power, "lr_power", self.name)
        if self.lr <= 0 or self.l1 < 0 or self.l2 < 0 or self.lr_power > 0:
            raise ValueError(f"For '{self.name}', 'lr' must be positive, 'l1' and 'l2' "
                             f"non-negative and 'lr_power' non-positive, but got lr={lr}, "
                             f"l1={l1}, l2={l2}, lr_power={lr_power}")
        self.use_locking = check_bool(use_locking, "use_locking", self.name)

    def _rows(self, a):
        var, accum, linear = _ftrl(a["var"], a["accum"], a["linear"], a["grad"], self.lr,
                                   self.l1, self.l2, self.lr_power, self._shrinkage)
        return {"var": var, "accum": accum, "linear": linear}


class FusedSparseFtrl(SparseApplyFtrl):
    """`FusedSparseFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad,
    indices)`: the rows of duplicate indices summed, then SparseApplyFtrl. Returns (var, accum,
    linear)."""


class SparseApplyFtrlV2(SparseApplyFtrl):
    """`SparseApplyFtrlV2(lr, l1, l2, l2_shrinkage, lr_power, use_locking=False)(var, accum,
    linear, grad, indices)`: SparseApplyFtrl whose linear term takes grad + 2 * l2_shrinkage *
    var. Returns (var, accum, linear). MindSpore 2.10 has no CPU kernel for it."""

    def __init__(self, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
        super().__init__(lr, l1, l2, lr_power, use_locking)
        self.l2_shrinkage = check_float(l2_shrinkage, "l2_shrinkage", self.name)

    @property
    def _shrinkage(self):
        return self.l2_shrinkage


class FusedSparseAdam(_Sparse):
    """`FusedSparseAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power,
    beta2_power, lr, beta1, beta2, epsilon, gradient, indices)`: Adam on every row with the
    gradient that is `gradient`'s rows (duplicates summed) at `indices` and 0 elsewhere.
    Returns (var, m, v), the updated values."""

    _inputs = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
               "gradient", "indices")
    _slots = ("var", "m", "v")
    _scalars = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")
    _grad = "gradient"
    _lazy = False

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        self.use_locking = check_bool(use_locking, "use_locking", self.name)
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.name)

    def _update(self, a):
        if self._lazy:
            return super()._update(a)
        dense = np.zeros_like(a["var"])
        dense[a["indices"]] = a["gradient"]
        return self._rows(dict(a, gradient=dense))

    def _rows(self, a):
        var, m, v = _adam_step(a["var"], a["m"], a["v"], a["beta1_power"], a["beta2_power"],
                               a["lr"], a["beta1"], a["beta2"], a["epsilon"], a["gradient"],
                               self.use_nesterov)
        return {"var": var, "m": m, "v": v}


class FusedSparseLazyAdam(FusedSparseAdam):
    """`FusedSparseLazyAdam(use_locking=False, use_nesterov=False)(...)`: FusedSparseAdam that
    updates only the rows `indices`. Returns (var, m, v), the updated values."""

    _lazy = True


# ---- assignment -------------------------------------------------------------------------------------

class _AssignOp(_Update):
    _inputs = ("variable", "value")
    _slots = ("variable",)
    _kinds = "biufc"
    _tuple_out = False

    def _check_shape(self, name, a, shape):
        if a.ndim != len(shape):
            raise ValueError(f"For '{self.name}', 'value' must have the same rank as 'variable', "
                             f"but got {a.ndim} and {len(shape)}")
        super()._check_shape(name, a, shape)

    def __call__(self, variable, value):
        if _number(value) and isinstance(variable, Tensor):
            value = wrap(np.asarray(value, variable._data.dtype))
        return self._run((variable, value))

    def _bind(self, args):
        values = super()._bind(args)
        if values["variable"]._data.dtype.kind == "b":
            raise TypeError(f"For '{self.name}', 'variable' must be a numeric Tensor, but got "
                            f"{values['variable'].dtype}")
        return values


class AssignAdd(_AssignOp):
    """`AssignAdd()(variable, value)`: variable += value, in place (same shape; value's dtype may
    not be wider than variable's). Returns the new value."""

    def _update(self, a):
        return {"variable": a["variable"] + a["value"]}


class AssignSub(_AssignOp):
    """`AssignSub()(variable, value)`: variable -= value, in place (same shape; value's dtype may
    not be wider than variable's). Returns the new value."""

    def _update(self, a):
        return {"variable": a["variable"] - a["value"]}


PRIMITIVE_CLASSES = (
    "ApplyMomentum", "ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyAdagrad",
    "ApplyAdagradV2", "ApplyProximalAdagrad", "ApplyAdadelta", "ApplyAdaMax", "ApplyAdagradDA",
    "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2", "ApplyAddSign", "ApplyPowerSign",
    "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyKerasMomentum", "Adam",
    "AdamNoUpdateParam", "AdamWeightDecay", "SGD", "LARSUpdate", "SparseApplyAdagrad", "SparseApplyAdagradV2",
    "SparseApplyProximalAdagrad", "FusedSparseProximalAdagrad", "SparseApplyRMSProp",
    "SparseApplyAdadelta", "SparseApplyFtrl", "FusedSparseFtrl", "SparseApplyFtrlV2",
    "FusedSparseAdam", "FusedSparseLazyAdam", "AssignAdd", "AssignSub",
)
