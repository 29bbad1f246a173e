"""Recurrent layers: RNN, LSTM, GRU over whole sequences; RNNCell, LSTMCell, GRUCell for one step.

Gate layouts are MindSpore's (and PyTorch's): LSTM rows of the weights are (i, f, g, o), GRU rows
(r, z, n). The input projection of every time step is one matmul before the time loop; each step
is then one matmul with the hidden-hidden weight and a few elementwise ops.
"""
import math

import numpy as np

from ..._autodiff.tape import const
from ..._validator import (check_bool, check_float_range, check_one_of, check_positive_int,
                           check_type)
from ...common import dtype as mstype
from ...common.initializer import Uniform, initializer
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import layer_func as LF
from ...ops.function import math_func as MF
from ...ops.function import nn_func as NF
from ...ops.operations import array_ops as A
from ...ops.operations import math_ops as M
from ...ops.operations import linalg_ops as L
from ...ops.primitive import data_function
from ..cell import Cell
from .basic import float_input

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_MATMUL_WT = L.MatMul(transpose_b=True)  # h @ W^T with W stored (gates, hidden), no transpose op


# ---- one time step ---------------------------------------------------------------------------
# `xw` is the input projection x @ W_ih^T plus the biases that can be folded into it (both for
# RNN and LSTM; only b_ih for GRU, whose b_hn sits inside the reset gate's product).

def _tanh_step(xw, h, w_hh, b_hh):
    return MF.tanh(xw + _MATMUL_WT(h, w_hh))


def _relu_step(xw, h, w_hh, b_hh):
    return NF.relu(xw + _MATMUL_WT(h, w_hh))


def _lstm_step(xw, state, w_hh, b_hh):
    h, c = state
    i, f, g, o = AF.split(xw + _MATMUL_WT(h, w_hh), h.shape[-1], axis=-1)
    c = MF.sigmoid(f) * c + MF.sigmoid(i) * MF.tanh(g)
    return MF.sigmoid(o) * MF.tanh(c), c


def _gru_step(xw, h, w_hh, b_hh):
    hidden = h.shape[-1]
    gh = _MATMUL_WT(h, w_hh)
    if b_hh is not None:
        gh = gh + b_hh
    x_rz, x_n = AF.split(xw, (2 * hidden, hidden), axis=-1)
    h_rz, h_n = AF.split(gh, (2 * hidden, hidden), axis=-1)
    r, z = AF.split(MF.sigmoid(x_rz + h_rz), hidden, axis=-1)
    n = MF.tanh(x_n + r * h_n)
    return n + z * (h - n)


# mode -> (gates per hidden unit, step function, whether b_hh folds into the input projection)
_MODES = {
    "RNN_TANH": (1, _tanh_step, True),
    "RNN_RELU": (1, _relu_step, True),
    "LSTM": (4, _lstm_step, True),
    "GRU": (3, _gru_step, False),
}


_NONLINEARITIES = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}


def _elman_mode(nonlinearity, cls):
    """The `_MODES` key of an Elman RNN with this `nonlinearity`."""
    return _NONLINEARITIES[check_one_of(nonlinearity, tuple(_NONLINEARITIES), "nonlinearity",
                                        cls)]


def _as_dtype(t, dt):
    return t if t is None or t.dtype == dt else M.cast(t, dt)


def _check_state(value, name, shape, cls):
    check_type(value, Tensor, name, cls)
    if tuple(value.shape) != shape:
        raise ValueError(f"For '{cls}', '{name}' must have shape {shape}, but got "
                         f"{tuple(value.shape)}")


# ---- sequence layers -----------------------------------------------------------------------------

def _steps_in_range(lengths, steps, dt):
    """(T, B, 1): whether step t is inside sequence b (bool), and the same as a `dt` mask."""
    in_range = (np.arange(steps)[:, None] < lengths[None, :])[:, :, None]
    return in_range, in_range.astype(dt)


class _RNNBase(Cell):
    """Stacked, optionally bidirectional recurrent layers over (seq_len, batch, input) input."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.input_size = check_positive_int(input_size, "input_size", cls)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        self.num_layers = check_positive_int(num_layers, "num_layers", cls)
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        self.batch_first = check_bool(batch_first, "batch_first", cls)
        self.bidirectional = check_bool(bidirectional, "bidirectional", cls)
        self.dropout = check_float_range(dropout, "dropout", cls, 0.0, 1.0, True, False)
        self.mode = mode
        self.is_lstm = mode == "LSTM"
        num_gates, self._step, self._fold_b_hh = _MODES[mode]
        num_directions = 2 if bidirectional else 1
        gate_size = num_gates * hidden_size
        init = Uniform(1 / math.sqrt(hidden_size))

        # MindSpore's order: every weight_ih, then every weight_hh, bias_ih, bias_hh, each
        # running over (layer, direction); checkpoints and trainable_params() follow it.
        groups = {"weight_ih": [], "weight_hh": []}
        if has_bias:
            groups.update(bias_ih=[], bias_hh=[])
        for kind, params in groups.items():
            for layer in range(num_layers):
                layer_input = input_size if layer == 0 else hidden_size * num_directions
                shape = {"weight_ih": (gate_size, layer_input),
                         "weight_hh": (gate_size, hidden_size)}.get(kind, (gate_size,))
                for suffix in ("", "_reverse")[:num_directions]:
                    name = f"{kind}_l{layer}{suffix}"
                    params.append(Parameter(initializer(init, shape, dtype), name=name))
                    setattr(self, name, params[-1])
        # MindSpore keeps the parameters in these tuples (indexed by layer * directions + dir).
        self.w_ih_list = ParameterTuple(groups["weight_ih"])
        self.w_hh_list = ParameterTuple(groups["weight_hh"])
        self.b_ih_list = ParameterTuple(groups.get("bias_ih", []))
        self.b_hh_list = ParameterTuple(groups.get("bias_hh", []))

    def _check_inputs(self, x, hx, seq_length):
        cls = type(self).__name__
        float_input(x, "x", cls)
        layout = "(batch_size, seq_len, " if self.batch_first else "(seq_len, batch_size, "
        if x.ndim != 3 or x.shape[2] != self.input_size or 0 in x.shape:
            raise ValueError(f"For '{cls}', 'x' must have shape {layout}input_size="
                             f"{self.input_size}) with non-empty axes, but got {tuple(x.shape)}")
        batch = x.shape[0] if self.batch_first else x.shape[1]
        state_shape = (self.num_layers * (2 if self.bidirectional else 1), batch,
                       self.hidden_size)
        if hx is not None:
            if self.is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError(f"For '{cls}', 'hx' must be a tuple (h_0, c_0), but got "
                                    f"{type(hx).__name__}")
                _check_state(hx[0], "hx[0]", state_shape, cls)
                _check_state(hx[1], "hx[1]", state_shape, cls)
            else:
                _check_state(hx, "hx", state_shape, cls)
        if seq_length is not None:
            kind = seq_length.dtype if isinstance(seq_length, Tensor) else type(seq_length).__name__
            if kind not in (mstype.int32, mstype.int64):
                raise TypeError(f"For '{cls}', 'seq_length' must be an int32 or int64 Tensor, "
                                f"but got {kind}")
            if tuple(seq_length.shape) != (batch,):
                raise ValueError(f"For '{cls}', 'seq_length' must have shape (batch_size,) = "
                                 f"({batch},), but got {tuple(seq_length.shape)}")
        return state_shape

    def _run_direction(self, x_proj, state, w_hh, b_hh, reverse, valid):
        """Steps over the projected input (T, B, gates); returns (outputs (T, B, H), state).
        With `valid` (per-step (B, 1) bool Tensors) a sequence's state stops changing after its
        length, so the reverse direction starts at its last real element."""
        steps = AF.unstack(x_proj, 0)
        outputs = [None] * len(steps)
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        for t in order:
            new = self._step(steps[t], state, w_hh, b_hh)
            if valid is None:
                state = new
            elif self.is_lstm:
                state = (AF.where(valid[t], new[0], state[0]), AF.where(valid[t], new[1], state[1]))
            else:
                state = AF.where(valid[t], new, state)
            outputs[t] = new[0] if self.is_lstm else new
        return AF.stack(outputs, 0), state

    def construct(self, x, hx=None, seq_length=None):
        """x: (seq_len, batch, input_size), or (batch, seq_len, input_size) with batch_first.
        hx: initial state (num_layers * num_directions, batch, hidden_size), a tuple (h_0, c_0)
        for LSTM; zeros when None. seq_length: (batch,) int lengths; outputs past a sequence's
        length are zero and its final state is the one at its last element.
        Returns (output, h_n), or (output, (h_n, c_n)) for LSTM."""
        state_shape = self._check_inputs(x, hx, seq_length)
        dt = x.dtype
        if self.batch_first:
            x = AF.transpose(x, (1, 0, 2))
        seq_len = x.shape[0]
        num_directions = 2 if self.bidirectional else 1

        if hx is None:
            zeros = const(np.zeros(state_shape[1:], mstype.to_np(dt)))
            initial = [(zeros, zeros) if self.is_lstm else zeros] * state_shape[0]
        elif self.is_lstm:
            initial = list(zip(AF.unstack(_as_dtype(hx[0], dt), 0),
                               AF.unstack(_as_dtype(hx[1], dt), 0)))
        else:
            initial = list(AF.unstack(_as_dtype(hx, dt), 0))

        valid, out_mask = None, None
        if seq_length is not None:
            # recorded nodes: a graph-mode replay masks by the new lengths
            in_range, out_mask = data_function(_steps_in_range, seq_length,
                                               static=(seq_len, mstype.to_np(dt)))
            valid = [A.getitem(in_range, t) for t in range(seq_len)]  # (B, 1) each

        layer_input = x
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                w_ih, w_hh = _as_dtype(self.w_ih_list[k], dt), _as_dtype(self.w_hh_list[k], dt)
                b_ih = b_hh = None
                if self.has_bias:
                    b_ih, b_hh = _as_dtype(self.b_ih_list[k], dt), _as_dtype(self.b_hh_list[k], dt)
                    if self._fold_b_hh:
                        b_ih, b_hh = b_ih + b_hh, None
                x_proj = NF.dense(layer_input, w_ih, b_ih)
                out, state = self._run_direction(x_proj, initial[k], w_hh, b_hh,
                                                 direction == 1, valid)
                if out_mask is not None:
                    out = out * out_mask
                outputs.append(out)
                finals.append(state)
            layer_input = outputs[0] if num_directions == 1 else AF.concat(outputs, 2)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                layer_input = LF.dropout(layer_input, self.dropout, True)

        output = AF.transpose(layer_input, (1, 0, 2)) if self.batch_first else layer_input
        if self.is_lstm:
            return output, (AF.stack([s[0] for s in finals], 0),
                            AF.stack([s[1] for s in finals], 0))
        return output, AF.stack(finals, 0)

    def extend_repr(self):
        s = f"input_size={self.input_size}, hidden_size={self.hidden_size}"
        if self.mode == "RNN_RELU":
            s += ", nonlinearity=relu"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.has_bias:
            s += ", has_bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Stacked Elman RNN: h_t = nonlinearity(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh).

    Args:
        input_size, hidden_size (int): features of the input and of the hidden state.
        num_layers (int): stacked layers. Default 1.
        has_bias (bool): whether there are b_ih and b_hh. Default True.
        batch_first (bool): input and output are (batch, seq_len, feature). Default False.
        dropout (float): dropout on the outputs of every layer but the last, in training mode.
        bidirectional (bool): run a second, reversed direction per layer. Default False.
        dtype: dtype of the parameters. Default float32.
        nonlinearity (str): 'tanh' (default) or 'relu'; keyword-only, as in MindSpore.

    Parameters `weight_ih_l{k}` (hidden, in), `weight_hh_l{k}` (hidden, hidden), `bias_ih_l{k}`,
    `bias_hh_l{k}` (suffix `_reverse` for the reversed direction), initialised
    Uniform(1/sqrt(hidden_size)).

    Inputs: `x`, optional `hx` (num_layers * num_directions, batch, hidden_size) and
    `seq_length` (batch,). Returns (output, h_n): output (seq_len, batch, num_directions *
    hidden_size) (batch first with `batch_first`), h_n shaped like hx.

    Example:
        >>> net = nn.RNN(10, 16, 2, batch_first=True)
        >>> output, h_n = net(ops.ones((3, 5, 10)))   # (3, 5, 16), (2, 3, 16)
    """

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32, *, nonlinearity="tanh"):
        super().__init__(_elman_mode(nonlinearity, "RNN"), input_size, hidden_size, num_layers,
                         has_bias, batch_first, dropout, bidirectional, dtype)


class LSTM(_RNNBase):
    """Stacked LSTM with gates (i, f, g, o):
    c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t).

    Args as `RNN` (no `nonlinearity`); the weights have 4 * hidden_size rows.
    Inputs: `x`, optional `hx` = (h_0, c_0), each (num_layers * num_directions, batch,
    hidden_size), and `seq_length`. Returns (output, (h_n, c_n)).

    Example:
        >>> net = nn.LSTM(10, 16, 2, bidirectional=True)
        >>> output, (h_n, c_n) = net(ops.ones((5, 3, 10)))   # (5, 3, 32), (4, 3, 16) twice
    """

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)


class GRU(_RNNBase):
    """Stacked GRU with gates (r, z, n):
    n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)),  h_t = (1 - z) * n + z * h_{t-1}.

    Args as `RNN` (no `nonlinearity`); the weights have 3 * hidden_size rows.
    Returns (output, h_n).

    Example:
        >>> net = nn.GRU(10, 16, batch_first=True)
        >>> output, h_n = net(ops.ones((3, 5, 10)))   # (3, 5, 16), (1, 3, 16)
    """

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)


# ---- single-step cells ---------------------------------------------------------------------------

class _RNNCellBase(Cell):
    """One recurrent step on (batch, input_size) input; parameters weight_ih, weight_hh,
    bias_ih, bias_hh, initialised Uniform(1/sqrt(hidden_size))."""

    def __init__(self, mode, input_size, hidden_size, has_bias, dtype):
        super().__init__()
        cls = type(self).__name__
        self.input_size = check_positive_int(input_size, "input_size", cls)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        num_gates, self._step, self._fold_b_hh = _MODES[mode]
        gate_size = num_gates * hidden_size
        init = Uniform(1 / math.sqrt(hidden_size))
        self.weight_ih = Parameter(initializer(init, (gate_size, input_size), dtype),
                                   name="weight_ih")
        self.weight_hh = Parameter(initializer(init, (gate_size, hidden_size), dtype),
                                   name="weight_hh")
        if has_bias:
            self.bias_ih = Parameter(initializer(init, (gate_size,), dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(init, (gate_size,), dtype), name="bias_hh")
        else:
            self.bias_ih = self.bias_hh = None

    def _check(self, x, states):
        cls = type(self).__name__
        float_input(x, "x", cls)
        if x.ndim != 2 or x.shape[1] != self.input_size:
            raise ValueError(f"For '{cls}', 'x' must have shape (batch_size, input_size="
                             f"{self.input_size}), but got {tuple(x.shape)}")
        for name, h in states:
            _check_state(h, name, (x.shape[0], self.hidden_size), cls)

    def _forward(self, x, state):
        dt = x.dtype
        b_ih = b_hh = None
        if self.has_bias:
            b_ih, b_hh = _as_dtype(self.bias_ih, dt), _as_dtype(self.bias_hh, dt)
            if self._fold_b_hh:
                b_ih, b_hh = b_ih + b_hh, None
        x_proj = NF.dense(x, _as_dtype(self.weight_ih, dt), b_ih)
        return self._step(x_proj, state, _as_dtype(self.weight_hh, dt), b_hh)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}"
                + ("" if self.has_bias else ", has_bias=False"))


class RNNCell(_RNNCellBase):
    """One Elman RNN step: h' = nonlinearity(x W_ih^T + b_ih + hx W_hh^T + b_hh).

    Args: input_size, hidden_size (int), has_bias (bool, default True), nonlinearity ('tanh'
    or 'relu'), dtype. Inputs: x (batch, input_size), hx (batch, hidden_size).
    Returns h' (batch, hidden_size).
    """

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        super().__init__(_elman_mode(nonlinearity, "RNNCell"), input_size, hidden_size, has_bias,
                         dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check(x, [("hx", hx)])
        return self._forward(x, _as_dtype(hx, x.dtype))

    def extend_repr(self):
        return super().extend_repr() + (", nonlinearity=relu" if self.nonlinearity == "relu"
                                        else "")


class LSTMCell(_RNNCellBase):
    """One LSTM step with gates (i, f, g, o).

    Args: input_size, hidden_size (int), has_bias (bool, default True), dtype.
    Inputs: x (batch, input_size), hx = (h, c), each (batch, hidden_size).
    Returns (h', c').
    """

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__("LSTM", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', 'hx' must be a tuple (h, c), but got "
                            f"{type(hx).__name__}")
        self._check(x, [("hx[0]", hx[0]), ("hx[1]", hx[1])])
        return self._forward(x, (_as_dtype(hx[0], x.dtype), _as_dtype(hx[1], x.dtype)))


class GRUCell(_RNNCellBase):
    """One GRU step with gates (r, z, n).

    Args: input_size, hidden_size (int), has_bias (bool, default True), dtype.
    Inputs: x (batch, input_size), hx (batch, hidden_size). Returns h' (batch, hidden_size).
    """

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__("GRU", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        self._check(x, [("hx", hx)])
        return self._forward(x, _as_dtype(hx, x.dtype))
