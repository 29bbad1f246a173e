"""Specs of the scatter primitives (same format as specs.py)."""
import numpy as np
from hypothesis import strategies as st

from minispore._autodiff.tape import apply
from minispore.ops.operations import scatter_ops as Sc

from ..helpers import strategies as S
from .specs import arr, distinct, spec


def _draw_segments(spread):
    """x of shape ids.shape + rest, int32 ids (1-D or 2-D) covering every segment, n."""
    def draw(data):
        lead = data.draw(st.sampled_from([(5,), (2, 3), (4,)]))
        rest = data.draw(S.shapes(0, 2, max_side=3))
        n = data.draw(st.integers(1, 3))
        size = int(np.prod(lead))
        ids = np.arange(size, dtype=np.int32) % n
        perm = data.draw(st.permutations(range(size)))
        ids = ids[list(perm)].reshape(lead)
        x = arr(data, lead + rest)
        if spread:
            x = distinct(x)
        return [x, ids], {"n": n}
    return draw


def _segment_ref(ufunc, fill):
    def ref(a, x, ids):
        rest = x.shape[ids.ndim:]
        out = np.full((a["n"],) + rest, fill)
        ufunc.at(out, ids.reshape(-1), x.reshape((-1,) + rest))
        return out
    return ref


def _segment_call(cls):
    return lambda a, x, ids: apply(cls(), (x, ids, a["n"]))


spec("UnsortedSegmentSum", _draw_segments(False), _segment_call(Sc.UnsortedSegmentSum),
     _segment_ref(np.add, 0.0), diff=(0,))
spec("UnsortedSegmentProd", _draw_segments(False), _segment_call(Sc.UnsortedSegmentProd),
     _segment_ref(np.multiply, 1.0), diff=(0,),
     notes="gradient: the product of the other elements of the segment, without division")
spec("UnsortedSegmentMax", _draw_segments(True), _segment_call(Sc.UnsortedSegmentMax),
     _segment_ref(np.maximum, -np.inf), diff=(0,), notes="distinct values: no ties")
spec("UnsortedSegmentMin", _draw_segments(True), _segment_call(Sc.UnsortedSegmentMin),
     _segment_ref(np.minimum, np.inf), diff=(0,), notes="distinct values: no ties")


def _draw_nd_scatter(data):
    shape = data.draw(S.shapes(1, 3, min_side=1, max_side=3))
    depth = data.draw(st.integers(1, len(shape)))
    count = data.draw(st.integers(1, 4))
    idx = np.array([[data.draw(st.integers(0, shape[d] - 1)) for d in range(depth)]
                    for _ in range(count)], np.int32)
    x = arr(data, shape)
    u = arr(data, (count,) + shape[depth:])
    both = distinct(np.concatenate([x.reshape(-1), u.reshape(-1)]))
    return [both[:x.size].reshape(shape), idx, both[x.size:].reshape(u.shape)], {}


def _nd_ref(ufunc):
    def ref(a, x, idx, u):
        out = x.copy()
        ufunc.at(out, tuple(idx[:, k] for k in range(idx.shape[1])), u)
        return out
    return ref


spec("TensorScatterMax", _draw_nd_scatter,
     lambda a, x, i, u: apply(Sc.TensorScatterMax(), (x, i, u)), _nd_ref(np.maximum),
     diff=(0, 2), notes="distinct values: no ties")
spec("TensorScatterMin", _draw_nd_scatter,
     lambda a, x, i, u: apply(Sc.TensorScatterMin(), (x, i, u)), _nd_ref(np.minimum),
     diff=(0, 2), notes="distinct values: no ties")
