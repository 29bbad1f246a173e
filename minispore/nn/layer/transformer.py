"""Attention and Transformer layers: MultiheadAttention, TransformerEncoderLayer/Encoder,
TransformerDecoderLayer/Decoder and Transformer, with MindSpore 2.10's parameter names."""
import copy
import math

import numpy as np

from ..._autodiff.tape import const
from ..._validator import (check_bool, check_callable, check_float_range, check_one_of,
                           check_positive_int, check_type)
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import layer_func as LF
from ...ops.function import math_func as MF
from ...ops.function import nn_func as NF
from ...ops.operations import math_ops as M
from ...ops.primitive import data_function
from ..cell import Cell
from .basic import Dense, Dropout, cast_params, float_input
from .container import CellList
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _bool_blocked(mask, shape4d, pad):
    return np.pad(mask.astype(bool).reshape(shape4d), pad)


def _additive_term(blocked, dtype):
    return np.where(blocked, -np.inf, 0.0).astype(dtype)


def _all_blocked(blocked):
    return np.all(blocked, axis=-1, keepdims=True)


def _kept(dead, dtype):
    return (~dead).astype(dtype)


class _AdditiveMask:
    """The masks of one attention call as terms added to the (B, H, L, S) scores: bool masks
    become one constant term of 0 / -inf, float masks stay Tensors (gradients reach them).
    Also tracks which rows have every key at -inf. Computed from the masks' data by
    DataFunction nodes, so a graph-mode replay computes them again."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.np_dtype = mstype.to_np(dtype)
        self.constant = None
        self.tensors = []
        self.blocked = None  # bool Tensor, True where a term is -inf

    def add(self, mask, shape4d, extra_keys):
        """Add `mask` reshaped to `shape4d` (broadcastable to (B, H, L, S)), with `extra_keys`
        visible key columns appended (bias_k / zero attention)."""
        pad = ((0, 0),) * 3 + ((0, extra_keys),)
        if mask.dtype in (mstype.bool_, mstype.uint8):
            blocked = data_function(_bool_blocked, mask, static=(tuple(shape4d), pad))
            term = data_function(_additive_term, blocked, static=(self.np_dtype,))
            self.constant = term if self.constant is None else self.constant + term
        else:
            t = AF.reshape(mask if mask.dtype == self.dtype else M.cast(mask, self.dtype),
                           shape4d)
            if extra_keys:
                t = AF.pad(t, (0, extra_keys))
            self.tensors.append(t)
            blocked = data_function(np.isneginf, t)
        self.blocked = blocked if self.blocked is None else \
            data_function(np.logical_or, self.blocked, blocked)

    def apply(self, scores):
        """(masked scores, a 0/1 keep factor for the weights or None). Rows with every key
        masked would be softmax(-inf, ..., -inf) = NaN; their scores are zeroed instead and their
        weights multiplied by 0, so outputs and gradients stay finite."""
        if self.constant is not None:
            scores = scores + self.constant
        for t in self.tensors:
            scores = scores + t
        dead = data_function(_all_blocked, self.blocked)
        if not dead.any():  # a value guard under graph capture
            return scores, None
        scores = AF.where(dead, const(np.zeros((), self.np_dtype)), scores)
        return scores, data_function(_kept, dead, static=(self.np_dtype,))


class MultiheadAttention(Cell):
    """Multi-head attention: softmax(Q K^T / sqrt(head_dim) + mask) V over `num_heads` heads,
    then an output projection.

    Args:
        embed_dim (int): query features (and output features); divisible by `num_heads`.
        num_heads (int): heads.
        dropout (float): dropout on the attention weights in training mode. Default 0.0.
        has_bias (bool): biases on the input and output projections. Default True.
        add_bias_kv (bool): append learned `bias_k`, `bias_v` as one more key/value position.
        add_zero_attn (bool): append a zero key/value position.
        kdim, vdim (int): key and value features (default `embed_dim`); when they differ from
            `embed_dim` the projections are `q_proj_weight`, `k_proj_weight`, `v_proj_weight`
            instead of the packed `in_proj_weight` (3 * embed_dim, embed_dim).
        batch_first (bool): inputs and output are (batch, seq, feature). Default False.
        dtype: parameter dtype. Default float32.

    Inputs: query (L, N, E), key (S, N, kdim), value (S, N, vdim) (batch first with
    `batch_first`; 2-D unbatched inputs too); key_padding_mask (N, S), True or -inf = ignore the
    key; attn_mask (L, S) or (N * num_heads, L, S), bool (True = masked), uint8 or float
    (added to the scores); need_weights; average_attn_weights (average the weights over heads).

    Returns (attn_output, attn_weights) with attn_weights (N, L, S), or (N, num_heads, L, S)
    when `average_attn_weights` is False; `(attn_output,)`, a 1-tuple, when `need_weights` is
    False (as MindSpore 2.10 returns it).
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=mstype.float32):
        super().__init__()
        cls = "MultiheadAttention"
        self.embed_dim = check_positive_int(embed_dim, "embed_dim", cls)
        self.num_heads = check_positive_int(num_heads, "num_heads", cls)
        if embed_dim % num_heads:
            raise ValueError(f"For '{cls}', 'embed_dim' ({embed_dim}) must be divisible by "
                             f"'num_heads' ({num_heads})")
        self.head_dim = embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else check_positive_int(kdim, "kdim", cls)
        self.vdim = embed_dim if vdim is None else check_positive_int(vdim, "vdim", cls)
        self.dropout = check_float_range(dropout, "dropout", cls, 0.0, 1.0, True, False)
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        self.add_zero_attn = check_bool(add_zero_attn, "add_zero_attn", cls)
        self.batch_first = check_bool(batch_first, "batch_first", cls)
        check_bool(add_bias_kv, "add_bias_kv", cls)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        dtype = mstype.float32 if dtype is None else dtype

        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                name="in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, embed_dim), dtype), name="q_proj_weight")
            self.k_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.kdim), dtype), name="k_proj_weight")
            self.v_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.vdim), dtype), name="v_proj_weight")
            self.in_proj_weight = None
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                      name="in_proj_bias") if has_bias else None
        self.out_proj = Dense(embed_dim, embed_dim, weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), has_bias=has_bias,
                              dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_v")
        else:
            self.bias_k = self.bias_v = None

    def _project(self, query, key, value, self_attention, key_is_value):
        """The input projections q, k, v (last axis embed_dim); self-attention is one matmul."""
        e = self.embed_dim
        bias = cast_params(self, self.in_proj_bias)[0]
        if self._qkv_same_embed_dim:
            weight = cast_params(self, self.in_proj_weight)[0]
            if self_attention:
                return AF.split(NF.dense(query, weight, bias), e, axis=-1)
            if key_is_value:
                w_q, w_kv = AF.split(weight, (e, 2 * e), axis=0)
                b_q, b_kv = (None, None) if bias is None else AF.split(bias, (e, 2 * e), axis=0)
                k, v = AF.split(NF.dense(key, w_kv, b_kv), e, axis=-1)
                return NF.dense(query, w_q, b_q), k, v
            w_q, w_k, w_v = AF.split(weight, e, axis=0)
        else:
            w_q, w_k, w_v = cast_params(self, self.q_proj_weight, self.k_proj_weight,
                                        self.v_proj_weight)
        b_q, b_k, b_v = (None,) * 3 if bias is None else AF.split(bias, e, axis=0)
        return NF.dense(query, w_q, b_q), NF.dense(key, w_k, b_k), NF.dense(value, w_v, b_v)

    def _check_inputs(self, query, key, value):
        cls = "MultiheadAttention"
        for name, t in (("query", query), ("key", key), ("value", value)):
            float_input(t, name, cls)
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"For '{cls}', 'query', 'key' and 'value' must all be 3-D (batched) "
                             f"or all 2-D (unbatched), but got shapes {tuple(query.shape)}, "
                             f"{tuple(key.shape)} and {tuple(value.shape)}")
        for name, t, dim, arg in (("query", query, self.embed_dim, "embed_dim"),
                                  ("key", key, self.kdim, "kdim"),
                                  ("value", value, self.vdim, "vdim")):
            if t.shape[-1] != dim:
                raise ValueError(f"For '{cls}', the last axis of '{name}' must be {arg}={dim}, "
                                 f"but got shape {tuple(t.shape)}")
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(f"For '{cls}', 'key' and 'value' must agree on all but the last "
                             f"axis, but got shapes {tuple(key.shape)} and {tuple(value.shape)}")

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        cls = "MultiheadAttention"
        self._check_inputs(query, key, value)
        self_attention, key_is_value = query is key and key is value, key is value
        batched = query.ndim == 3
        if not batched:  # one sequence: a batch of 1, sequence first
            query, key, value = (AF.expand_dims(t, 1) for t in (query, key, value))
        batch_axis = 0 if batched and self.batch_first else 1
        seq_axis = 1 - batch_axis
        batch, tgt_len, src_len = query.shape[batch_axis], query.shape[seq_axis], \
            key.shape[seq_axis]
        if key.shape[batch_axis] != batch:
            raise ValueError(f"For '{cls}', 'query' and 'key' must have the same batch size, but "
                             f"got shapes {tuple(query.shape)} and {tuple(key.shape)}")
        heads, head_dim, e = self.num_heads, self.head_dim, self.embed_dim

        q, k, v = self._project(query, key, value, self_attention, key_is_value)
        if self.bias_k is not None:
            bias_k, bias_v = cast_params(self, self.bias_k, self.bias_v)
            shape = [1, 1, e]
            shape[batch_axis] = batch
            k = AF.concat([k, AF.broadcast_to(bias_k, tuple(shape))], seq_axis)
            v = AF.concat([v, AF.broadcast_to(bias_v, tuple(shape))], seq_axis)

        # (seq, batch) or (batch, seq) -> heads (B, H, seq, head_dim); keys as (B, H, d, S).
        to_heads = (1, 2, 0, 3) if batch_axis == 1 else (0, 2, 1, 3)
        keys_t = (1, 2, 3, 0) if batch_axis == 1 else (0, 2, 3, 1)
        q = AF.transpose(AF.reshape(q * (1.0 / math.sqrt(head_dim)),
                                    q.shape[:2] + (heads, head_dim)), to_heads)
        k = AF.transpose(AF.reshape(k, k.shape[:2] + (heads, head_dim)), keys_t)
        v = AF.transpose(AF.reshape(v, v.shape[:2] + (heads, head_dim)), to_heads)
        if self.add_zero_attn:
            k = AF.concat([k, AF.zeros(k.shape[:3] + (1,), k.dtype)], 3)
            v = AF.concat([v, AF.zeros(v.shape[:2] + (1, head_dim), v.dtype)], 2)
        extra_keys = k.shape[3] - src_len

        scores = MF.matmul(q, k)  # (B, H, L, S)
        keep = None
        if attn_mask is not None or key_padding_mask is not None:
            masks = _AdditiveMask(scores.dtype)
            if attn_mask is not None:
                masks.add(*self._attn_mask_shape(attn_mask, batch, tgt_len, src_len),
                          extra_keys)
            if key_padding_mask is not None:
                masks.add(*self._padding_mask_shape(key_padding_mask, batched, batch, src_len),
                          extra_keys)
            scores, keep = masks.apply(scores)
        weights = NF.softmax(scores, -1)
        if keep is not None:
            weights = weights * keep
        if self.training and self.dropout > 0:
            weights = LF.dropout(weights, self.dropout, True)
        out = MF.matmul(weights, v)  # (B, H, L, d)

        from_heads = (2, 0, 1, 3) if batch_axis == 1 else (0, 2, 1, 3)
        out = AF.transpose(out, from_heads)
        out = self.out_proj(AF.reshape(out, out.shape[:2] + (e,)))
        if not batched:
            out = AF.squeeze(out, 1)
        if not need_weights:
            return (out,)
        if average_attn_weights:
            weights = MF.mean(weights, 1)
        if not batched:
            weights = AF.squeeze(weights, 0)
        return out, weights

    def _attn_mask_shape(self, attn_mask, batch, tgt_len, src_len):
        cls = "MultiheadAttention"
        check_type(attn_mask, Tensor, "attn_mask", cls)
        if attn_mask.dtype not in (mstype.bool_, mstype.uint8) and \
                attn_mask._data.dtype.kind != "f":
            raise TypeError(f"For '{cls}', 'attn_mask' must be a bool, uint8 or float Tensor, "
                            f"but got {attn_mask.dtype}")
        shape = tuple(attn_mask.shape)
        if shape == (tgt_len, src_len):
            return attn_mask, (1, 1, tgt_len, src_len)
        if shape == (batch * self.num_heads, tgt_len, src_len):
            return attn_mask, (batch, self.num_heads, tgt_len, src_len)
        raise ValueError(f"For '{cls}', 'attn_mask' must have shape (L, S) = "
                         f"{(tgt_len, src_len)} or (N * num_heads, L, S) = "
                         f"{(batch * self.num_heads, tgt_len, src_len)}, but got {shape}")

    def _padding_mask_shape(self, key_padding_mask, batched, batch, src_len):
        cls = "MultiheadAttention"
        check_type(key_padding_mask, Tensor, "key_padding_mask", cls)
        if key_padding_mask.dtype != mstype.bool_ and key_padding_mask._data.dtype.kind != "f":
            raise TypeError(f"For '{cls}', 'key_padding_mask' must be a bool or float Tensor, "
                            f"but got {key_padding_mask.dtype}")
        expected = (batch, src_len) if batched else (src_len,)
        if tuple(key_padding_mask.shape) != expected:
            raise ValueError(f"For '{cls}', 'key_padding_mask' must have shape {expected}, but "
                             f"got {tuple(key_padding_mask.shape)}")
        return key_padding_mask, (batch, 1, 1, src_len)

    def extend_repr(self):
        s = f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.batch_first:
            s += ", batch_first=True"
        return s


# ---- Transformer blocks --------------------------------------------------------------------------

def _activation(activation, cls):
    """'relu' / 'gelu' (exact, as `ops.gelu`) or any Cell or callable."""
    if isinstance(activation, str):
        check_one_of(activation, ("relu", "gelu"), "activation", cls)
        return NF.relu if activation == "relu" else NF.gelu
    return check_callable(activation, "activation", cls)


class _TransformerLayerBase(Cell):
    """Shared parts: the feed-forward block (dense1, dropout, dense2) and its settings."""

    def _feedforward_init(self, d_model, nhead, dim_feedforward, dropout, activation,
                          layer_norm_eps, batch_first, norm_first, dtype):
        cls = type(self).__name__
        self.d_model = check_positive_int(d_model, "d_model", cls)
        self.nhead = check_positive_int(nhead, "nhead", cls)
        self.dim_feedforward = check_positive_int(dim_feedforward, "dim_feedforward", cls)
        self.dropout_num = check_float_range(dropout, "dropout", cls, 0.0, 1.0, True, False)
        self.layernorm_eps = float(layer_norm_eps)
        self.batch_first = check_bool(batch_first, "batch_first", cls)
        self.norm_first = check_bool(norm_first, "norm_first", cls)
        self.dtype = dtype
        self.dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)
        self.activation = _activation(activation, cls)

    def _ff_block(self, x, dropout_out):
        return dropout_out(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def _attention_block(self, attn, dropout, x, memory, attn_mask, key_padding_mask):
        out = attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                   need_weights=False)[0]
        return dropout(out)

    def _check_features(self, x, name):
        float_input(x, name, type(self).__name__)
        if x.ndim not in (2, 3) or x.shape[-1] != self.d_model:
            raise ValueError(f"For '{type(self).__name__}', '{name}' must be 2-D or 3-D with "
                             f"d_model={self.d_model} features on the last axis, but got shape "
                             f"{tuple(x.shape)}")

    def extend_repr(self):
        return (f"d_model={self.d_model}, nhead={self.nhead}, dim_feedforward="
                f"{self.dim_feedforward}, dropout={self.dropout_num}, batch_first="
                f"{self.batch_first}, norm_first={self.norm_first}")


class TransformerEncoderLayer(_TransformerLayerBase):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm
    (after the residual by default, before the block with `norm_first`).

    Args:
        d_model (int): features. nhead (int): attention heads.
        dim_feedforward (int): hidden features of the feed-forward block. Default 2048.
        dropout (float): dropout in training mode. Default 0.1.
        activation: 'relu' (default), 'gelu' (exact), or a Cell / callable.
        layer_norm_eps (float): Default 1e-5. batch_first (bool), norm_first (bool), dtype.

    Parameters: self_attn.*, dense1.*, dense2.*, norm1.gamma/beta, norm2.gamma/beta.
    Inputs: src, src_mask (the attention's attn_mask), src_key_padding_mask. Returns a Tensor
    shaped like src.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self._feedforward_init(d_model, nhead, dim_feedforward, dropout, activation,
                               layer_norm_eps, batch_first, norm_first, dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        self._check_features(src, "src")
        x = src
        if self.norm_first:
            h = self.norm1(x)
            x = x + self._attention_block(self.self_attn, self.dropout1, h, h, src_mask,
                                          src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._attention_block(self.self_attn, self.dropout1, x, x,
                                                     src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_TransformerLayerBase):
    """Self-attention, attention over the encoder output (`memory`), then a feed-forward block,
    each with a residual connection and LayerNorm (post-norm unless `norm_first`).

    Args as `TransformerEncoderLayer`. Parameters: self_attn.*, multihead_attn.*, dense1.*,
    dense2.*, norm1-3.gamma/beta.
    Inputs: tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask.
    Returns a Tensor shaped like tgt.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self._feedforward_init(d_model, nhead, dim_feedforward, dropout, activation,
                               layer_norm_eps, batch_first, norm_first, dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        self._check_features(tgt, "tgt")
        self._check_features(memory, "memory")
        x = tgt
        if self.norm_first:
            h = self.norm1(x)
            x = x + self._attention_block(self.self_attn, self.dropout1, h, h, tgt_mask,
                                          tgt_key_padding_mask)
            x = x + self._attention_block(self.multihead_attn, self.dropout2, self.norm2(x),
                                          memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._attention_block(self.self_attn, self.dropout1, x, x,
                                                     tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._attention_block(self.multihead_attn, self.dropout2, x,
                                                     memory, memory_mask,
                                                     memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x


def _stack_copies(layer, arg, num_layers, expected, cls):
    check_type(layer, expected, arg, cls)
    check_positive_int(num_layers, "num_layers", cls)
    return CellList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """`num_layers` deep copies of `encoder_layer` applied in turn, then `norm` if given.

    Args: encoder_layer (TransformerEncoderLayer), num_layers (int), norm (Cell, optional).
    Parameters are named `layers.{i}.self_attn.in_proj_weight`, ..., then `norm.*`.
    Inputs: src, src_mask, src_key_padding_mask (passed to every layer).
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack_copies(encoder_layer, "encoder_layer", num_layers,
                                    TransformerEncoderLayer, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Cell):
    """`num_layers` deep copies of `decoder_layer` applied in turn, then `norm` if given.

    Args: decoder_layer (TransformerDecoderLayer), num_layers (int), norm (Cell, optional).
    Inputs: tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask.
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack_copies(decoder_layer, "decoder_layer", num_layers,
                                    TransformerDecoderLayer, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class Transformer(Cell):
    """Encoder-decoder Transformer: `encoder` (TransformerEncoder with a final LayerNorm) over
    src, `decoder` over tgt attending to the encoder output. Every parameter with 2 or more
    axes is re-initialised XavierUniform, as in MindSpore.

    Args: d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation='relu', custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype.
    Inputs: src, tgt, src_mask, tgt_mask, memory_mask, src_key_padding_mask,
    tgt_key_padding_mask, memory_key_padding_mask. Returns a Tensor shaped like tgt.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, dtype)
        for name, custom, stack, layer, num_layers in (
                ("encoder", custom_encoder, TransformerEncoder, TransformerEncoderLayer,
                 num_encoder_layers),
                ("decoder", custom_decoder, TransformerDecoder, TransformerDecoderLayer,
                 num_decoder_layers)):
            setattr(self, name, custom if custom is not None else stack(
                layer(*layer_args), num_layers,
                LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)))
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        float_input(src, "src", "Transformer")
        float_input(tgt, "tgt", "Transformer")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"For 'Transformer', 'src' and 'tgt' must have d_model="
                             f"{self.d_model} features, but got shapes {tuple(src.shape)} and "
                             f"{tuple(tgt.shape)}")
        if src.ndim == 3 and tgt.ndim == 3:
            axis = 0 if self.batch_first else 1
            if src.shape[axis] != tgt.shape[axis]:
                raise ValueError(f"For 'Transformer', 'src' and 'tgt' must have the same batch "
                                 f"size, but got shapes {tuple(src.shape)} and "
                                 f"{tuple(tgt.shape)}")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
