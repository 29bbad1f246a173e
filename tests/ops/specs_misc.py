"""Specs of the miscellaneous primitives (same format as specs.py): EditDistance, RaggedRange,
NoRepeatNGram, RNNTLoss, ConfusionMatrix, FloatStatus, SubAndFilter, MapUniform. Integer inputs
are drawn as int arrays (constants, wrapped in Tensors by the calls)."""
import itertools

import numpy as np
from hypothesis import strategies as st

from minispore import Tensor
from minispore.common import dtype as mstype
from minispore.ops.operations import misc_ops as P

from ..helpers import strategies as S
from .specs import arr, spec


def _int_array(data, shape, low, high, dtype=np.int64):
    return np.array(data.draw(st.lists(st.integers(low, high), min_size=int(np.prod(shape)),
                                       max_size=int(np.prod(shape)))), dtype).reshape(shape)


# ---- EditDistance -------------------------------------------------------------------------------

def _draw_sparse(data, batch, max_len):
    lengths = [data.draw(st.integers(0, max_len)) for _ in range(batch)]
    idx = [[b, p] for b in range(batch) for p in range(lengths[b])]
    vals = _int_array(data, (len(idx),), 0, 3, np.int32)
    return np.array(idx, np.int64).reshape(-1, 2), vals, np.array([batch, max_len], np.int64)


def _draw_edit(data):
    batch = data.draw(st.integers(1, 4))
    hyp = _draw_sparse(data, batch, data.draw(st.integers(1, 5)))
    truth = _draw_sparse(data, batch, data.draw(st.integers(1, 5)))
    return [*hyp, *truth], {"normalize": data.draw(st.booleans())}


def _full_table_distance(a, b):
    table = np.zeros((len(a) + 1, len(b) + 1))
    table[:, 0], table[0, :] = np.arange(len(a) + 1), np.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i, j] = min(table[i - 1, j] + 1, table[i, j - 1] + 1,
                              table[i - 1, j - 1] + (a[i - 1] != b[j - 1]))
    return table[-1, -1]


def _edit_ref(attrs, h_idx, h_val, h_shape, t_idx, t_val, t_shape):
    out = np.zeros(max(h_shape[0], t_shape[0]), np.float32)
    for b in range(len(out)):
        a, t = h_val[h_idx[:, 0] == b], t_val[t_idx[:, 0] == b]
        d = _full_table_distance(a, t)
        if attrs["normalize"]:
            d = d / len(t) if len(t) else (np.inf if len(a) else 0.0)
        out[b] = d
    return out


spec("EditDistance", _draw_edit,
     lambda a, *args: P.EditDistance(a["normalize"])(*[Tensor(x) for x in args]),
     _edit_ref, order=0)


# ---- RaggedRange --------------------------------------------------------------------------------

def _draw_ragged(data):
    n = data.draw(st.integers(0, 4))
    starts, limits = _int_array(data, (n,), -6, 6), _int_array(data, (n,), -6, 6)
    deltas = np.array([data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in range(n)],
                      np.int64)
    return [starts, limits, deltas], {"Tsplits": data.draw(st.sampled_from([mstype.int32,
                                                                          mstype.int64]))}


def _ragged_ref(attrs, starts, limits, deltas):
    rows = [np.arange(s, l, d) for s, l, d in zip(starts, limits, deltas)]
    splits = np.cumsum([0] + [len(r) for r in rows])
    return splits, np.concatenate(rows) if rows else np.zeros(0, np.int64)


spec("RaggedRange", _draw_ragged,
     lambda a, *args: P.RaggedRange(a["Tsplits"])(*[Tensor(x) for x in args]), _ragged_ref,
     order=0)


# ---- NoRepeatNGram ------------------------------------------------------------------------------

def _draw_ngram(data):
    b, beam, length, vocab = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)),
                              data.draw(st.integers(1, 8)), data.draw(st.integers(2, 5)))
    seq = _int_array(data, (b, beam, length), 0, vocab - 1, np.int32)
    logp = arr(data, (b, beam, vocab)).astype(np.float32)
    return [seq, logp], {"n": data.draw(st.integers(1, min(4, length + 1)))}


def _ngram_ref(attrs, seq, logp):
    n, out = attrs["n"], logp.copy()
    for idx in np.ndindex(seq.shape[:2]):
        tokens = list(seq[idx])
        grams = {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}
        prefix = tuple(tokens[len(tokens) - n + 1:]) if n > 1 else ()
        for gram in grams:
            if gram[:-1] == prefix and len(tokens) >= n:
                out[idx + (gram[-1],)] = np.finfo(np.float32).min
    return out


spec("NoRepeatNGram", _draw_ngram,
     lambda a, seq, logp: P.NoRepeatNGram(a["n"])(Tensor(seq), Tensor(logp)), _ngram_ref,
     order=0)


# ---- RNNTLoss -----------------------------------------------------------------------------------

def _draw_rnnt(data):
    b, t, u, v = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)),
                  data.draw(st.integers(1, 3)), data.draw(st.integers(2, 4)))
    blank = data.draw(st.integers(0, v - 1))
    labels = _int_array(data, (b, u - 1), 0, v - 1, np.int32)
    t_len = _int_array(data, (b,), 1, t, np.int32)
    u_len = _int_array(data, (b,), 0, u - 1, np.int32)
    return [arr(data, (b, t, u, v), S.Domain(-2, 2)), labels, t_len, u_len], {"blank": blank}


def _rnnt_brute_force(attrs, acts, labels, t_len, u_len):
    """-log of the sum over every alignment (the label emissions' places among the T-1 + U
    steps before the final blank) of its probability."""
    logp = acts - np.log(np.exp(acts).sum(-1, keepdims=True))
    costs = []
    for b in range(len(acts)):
        t_n, u_n, total = int(t_len[b]), int(u_len[b]), 0.0
        for emits in itertools.combinations(range(t_n - 1 + u_n), u_n):
            t = u = 0
            logprob = 0.0
            for step in range(t_n - 1 + u_n):
                if step in emits:
                    logprob += logp[b, t, u, labels[b, u]]
                    u += 1
                else:
                    logprob += logp[b, t, u, attrs["blank"]]
                    t += 1
            total += np.exp(logprob + logp[b, t, u, attrs["blank"]])
        costs.append(-np.log(total))
    return np.array(costs)


spec("RNNTLoss", _draw_rnnt,
     lambda a, acts, labels, t_len, u_len: P.RNNTLoss(a["blank"])(
         acts, Tensor(labels), Tensor(t_len), Tensor(u_len))[0],
     _rnnt_brute_force, order=1,
     notes="order 1: the gradient is the primitive's second output, a constant (as MindSpore's "
           "bprop); the call checks the costs against a sum over every alignment")


# ---- ConfusionMatrix, FloatStatus ---------------------------------------------------------------

def _draw_confusion(data):
    n, size = data.draw(st.integers(1, 4)), data.draw(st.integers(0, 8))
    weighted = data.draw(st.booleans())
    args = [_int_array(data, (size,), 0, n - 1, np.int32),
            _int_array(data, (size,), 0, n - 1, np.int32)]
    if weighted:
        args.append(_int_array(data, (size,), -3, 3, np.int32))
    return args, {"n": n}


def _confusion_ref(attrs, labels, preds, weights=None):
    n = attrs["n"]
    out = np.zeros((n, n), np.int32)
    for i, (l, p) in enumerate(zip(labels, preds)):
        out[l, p] += 1 if weights is None else weights[i]
    return out


spec("ConfusionMatrix", _draw_confusion,
     lambda a, *args: P.ConfusionMatrix(a["n"])(*[Tensor(x) for x in args]), _confusion_ref,
     order=0)


def _draw_status(data):
    x = arr(data, data.draw(S.shapes(0, 3)))
    if x.size and data.draw(st.booleans()):
        x.flat[data.draw(st.integers(0, x.size - 1))] = data.draw(
            st.sampled_from([np.nan, np.inf, -np.inf]))
    return [x], {}


spec("FloatStatus", _draw_status, lambda a, x: P.FloatStatus()(x),
     lambda a, x: np.array([0.0 if np.isfinite(x).all() else 1.0], np.float32), order=0)


# ---- SubAndFilter, MapUniform -------------------------------------------------------------------

def _draw_ids(data):
    shape = data.draw(S.shapes(0, 2))
    dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    return [_int_array(data, shape, -5, 20, dtype)], {"max_num": data.draw(st.integers(1, 12)),
                                                      "offset": data.draw(st.integers(-3, 6))}


def _sub_and_filter_ref(attrs, x):
    flat = x.reshape(-1)
    keep = [i for i, v in enumerate(flat) if 0 <= v - attrs["offset"] < attrs["max_num"]]
    return (np.array([flat[i] - attrs["offset"] for i in keep], x.dtype),
            np.array(keep, x.dtype))


spec("SubAndFilter", _draw_ids,
     lambda a, x: P.SubAndFilter()(Tensor(x), a["max_num"], a["offset"]), _sub_and_filter_ref,
     order=0)


def _draw_keys(data):
    size, groups = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 4))
    shape = data.draw(S.shapes(0, 2))
    dtype = data.draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64]))
    return [_int_array(data, shape, -size * groups, size * groups - 1, dtype)], \
        {"size": size, "groups": groups}


def _map_uniform_ref(attrs, keys):
    g = attrs["groups"]
    signs, mags = np.sign(keys.reshape(-1)).astype(int), np.abs(keys.reshape(-1).astype(int))
    out = [s * (m % g) * attrs["size"] + s * (m // g) for s, m in zip(signs, mags)]
    return np.array(out, keys.dtype).reshape(keys.shape)


spec("MapUniform", _draw_keys,
     lambda a, x: P.MapUniform()(Tensor(x), a["size"], a["groups"]), _map_uniform_ref, order=0)
