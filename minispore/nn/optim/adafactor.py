"""AdaFactor: Adam-like steps with a factored (row and column) second moment for matrices."""
import numpy as np

from ..._validator import check_bool, check_float_range, check_non_negative_float, check_type
from ...common.parameter import Parameter, ParameterTuple
from .optimizer import Optimizer

__all__ = ["AdaFactor"]


def _rms(a):
    return np.sqrt(np.mean(np.square(a)))


class AdaFactor(Optimizer):
    """Adafactor (Shazeer and Stern, 2018). At step t, with beta2t = 1 - t^-decay_rate:

    - g2 = g * g + eps[0]; for a parameter of 2 or more dims the second moment is kept as a
      row mean R and a column mean C (`R = beta2t * R + (1 - beta2t) * mean(g2, -1)`, likewise
      C over axis -2) and the update is g / sqrt(R / mean(R) outer C); otherwise
      `v = beta2t * v + (1 - beta2t) * g2` and the update is g / sqrt(v);
    - the update is divided by max(1, rms(update) / clip_threshold) and scaled by the step
      size: lr, times max(eps[1], rms(w)) when `scale_parameter`; with `relative_step`
      (no `learning_rate`) lr = min(1e-2, 1 / sqrt(t)) (min(1e-6 t, 1 / sqrt(t)) with
      `warmup_init`);
    - with beta1 > 0 the update is smoothed: `m = beta1 * m + (1 - beta1) * update`;
    - w -= update (after w -= weight_decay * step size * w when weight_decay > 0).

    State: `exp_avg.<name>` (when beta1 > 0), `exp_avg_sq_row_<name>`, `exp_avg_sq_col_<name>`,
    `exp_avg_sq_<name>` and the step count `afactor_step`. `compression` keeps the second
    moment of 1-d parameters in float16.
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
                 relative_step=True, warmup_init=False, compression=False, loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        if learning_rate is None:
            learning_rate = 0.0
        if beta1 is None:
            beta1 = 0.0
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = isinstance(learning_rate, (float, int))
        owner = "AdaFactor"
        check_type(eps, (list, tuple), "eps", owner)
        if len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        for i, e in enumerate(eps):
            check_type(e, float, f"eps{i}", owner)
            check_non_negative_float(e, f"eps{i}", owner)
        check_type(clip_threshold, float, "clip_threshold", owner)
        check_non_negative_float(clip_threshold, "clip_threshold", owner)
        check_type(decay_rate, float, "decay_rate", owner)
        check_float_range(decay_rate, "decay_rate", owner, 0.0, 1.0, False, False)
        check_float_range(weight_decay, "weight_decay", owner, 0.0, 1.0, True, False)
        check_bool(scale_parameter, "scale_parameter", owner)
        check_bool(relative_step, "relative_step", owner)
        check_bool(compression, "compression", owner)
        check_type(beta1, (int, float), "beta1", owner)
        check_non_negative_float(float(beta1), "beta1", owner)
        self.eps = tuple(np.float32(e) for e in eps)
        self.clip_threshold = np.float32(clip_threshold)
        self.decay_rate = np.float32(-decay_rate)
        self.beta1 = np.float32(beta1)
        self.weight_decay_value = np.float32(weight_decay)
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter if self.scale_lr else False
        self.relative_step, self.warmup_init = relative_step, warmup_init
        self.compression = compression
        self.use_first_moment = beta1 > 0
        self._init_state()
        self.step = Parameter(np.zeros(1, np.float32), name="afactor_step")

    def _init_state(self):
        avg, rows, cols, sq = [], [], [], []
        for p in self.parameters:
            dt, shape, name = p._data.dtype, p.shape, p.name
            if self.use_first_moment:
                avg.append(Parameter(np.zeros(shape, dt), name=f"exp_avg.{name}"))
            if len(shape) > 1:
                rows.append(Parameter(np.zeros(shape[:-1], dt), name=f"exp_avg_sq_row_{name}"))
                cols.append(Parameter(np.zeros(shape[:-2] + shape[-1:], dt),
                                      name=f"exp_avg_sq_col_{name}"))
                sq.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_{name}"))
            else:
                rows.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_row_{name}"))
                cols.append(Parameter(np.zeros((1,), dt), name=f"exp_avg_sq_col_{name}"))
                sq_dt = np.float16 if self.compression else dt
                sq.append(Parameter(np.zeros(shape, sq_dt), name=f"exp_avg_sq_{name}"))
        for states in (avg, rows, cols, sq):
            for s in states:
                self._params[s.name] = s
        self.exp_avg = ParameterTuple(avg)
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(sq)

    def construct(self, gradients):
        grads, lrs, _ = self._begin_step(gradients, preprocess=False)
        step_data = self.step._data
        np.add(step_data, np.float32(1), out=step_data)
        step = step_data[0]
        one = np.float32(1.0)
        beta2t = one - np.power(step, self.decay_rate)
        for i, (p, g, lr) in enumerate(zip(self.parameters, grads, lrs)):
            if self.scale_lr and self.relative_step:
                min_step = np.float32(1e-6) * step if self.warmup_init else np.float32(1e-2)
                lr = np.minimum(min_step, one / np.sqrt(step))
            self._update(i, p, g.astype(np.float32), np.float32(lr), beta2t)
        return self._end_step(self.exp_avg, self.exp_avg_sq_row, self.exp_avg_sq_col,
                              self.exp_avg_sq, (self.step,))

    def _update(self, i, p, g, lr, beta2t):
        w = p._data.astype(np.float32)
        one = np.float32(1.0)
        if self.scale_parameter:
            lr = lr * np.maximum(self.eps[1], _rms(w))
        g2 = g * g + self.eps[0]
        if g.ndim >= 2:
            row, col = self.exp_avg_sq_row[i]._data, self.exp_avg_sq_col[i]._data
            row[...] = row * beta2t + g2.mean(-1) * (one - beta2t)
            col[...] = col * beta2t + g2.mean(-2) * (one - beta2t)
            r = one / np.sqrt(row / row.mean(-1, keepdims=True))
            c = one / np.sqrt(col)
            update = r[..., None] * c[..., None, :] * g
        else:
            v = self.exp_avg_sq[i]._data
            v[...] = v * beta2t + g2 * (one - beta2t)
            update = g / np.sqrt(v.astype(np.float32))
        update = update / np.maximum(_rms(update) / self.clip_threshold, one) * lr
        if self.use_first_moment:
            m = self.exp_avg[i]._data
            m[...] = m * self.beta1 + update * (one - self.beta1)
            update = m.astype(np.float32)
        if self.weight_decay_flag:
            w = w + w * -self.weight_decay_value * lr
        p._data[...] = (w - update).astype(p._data.dtype)
