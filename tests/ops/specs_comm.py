"""Specs of the collective primitives (same format as specs.py), in the world of one that a plain
process is: every collective is the identity and the gradients are MindSpore's rules there
(all-reduce of dout is dout, the max/min mask is all ones, prod's dout * out / x is dout). The
rules on several ranks are checked under MPI by tests/distributed/test_mpi.py."""
import numpy as np
from hypothesis import strategies as st

from minispore import dtype as mstype
from minispore.communication import init
from minispore.ops.operations import comm_ops as C

from ..helpers import strategies as S
from .specs import arr, spec


def _world(call):
    def run(attrs, *args):
        init()
        return call(attrs, *args)
    return run


def _draw_all_reduce(data):
    op = data.draw(st.sampled_from(["sum", "max", "min", "prod"]))
    domain = S.AWAY_FROM_ZERO if op == "prod" else S.REALS
    return [arr(data, data.draw(S.shapes(0, 3)), domain)], {"op": op}


def _draw_rows(data):
    return [arr(data, data.draw(S.shapes(1, 3)))], {}


def _draw_broadcast(data):
    count = data.draw(st.integers(1, 2))
    return [arr(data, data.draw(S.shapes(0, 3))) for _ in range(count)], {}


def _draw_all_to_all(data):
    shape = data.draw(S.shapes(1, 3))
    ndim = len(shape)
    split = data.draw(st.integers(-ndim, ndim - 1))
    concat = data.draw(st.integers(-ndim, ndim - 1))
    return [arr(data, shape)], {"split": split, "concat": concat}


def _send_receive(attrs, x):
    sent = C.Send(3, 0)(x)
    got = C.Receive(3, 0, list(x.shape), mstype.pytype_to_dtype(x.asnumpy().dtype))()
    return sent, got


spec("AllReduce", _draw_all_reduce, _world(lambda a, x: C.AllReduce(a["op"])(x)),
     lambda a, x: x)
spec("AllGather", _draw_rows, _world(lambda a, x: C.AllGather()(x)), lambda a, x: x)
spec("ReduceScatter", _draw_rows, _world(lambda a, x: C.ReduceScatter()(x)), lambda a, x: x)
spec("Broadcast", _draw_broadcast, _world(lambda a, *xs: C.Broadcast(0)(xs)),
     lambda a, *xs: tuple(xs))
spec("AlltoAll", _draw_all_to_all,
     _world(lambda a, x: C.AlltoAll(1, a["split"], a["concat"])(x)), lambda a, x: x)
spec("Send", _draw_broadcast, _world(lambda a, x, *rest: _send_receive(a, x)),
     lambda a, x, *rest: (x, x), order=0,
     notes="not differentiated: its peer's Receive would have to run a backward too")
spec("Receive", _draw_broadcast, _world(lambda a, x, *rest: _send_receive(a, x)[1]),
     lambda a, x, *rest: x, order=0, notes="not differentiated (see Send)")
spec("Barrier", lambda data: ([], {}), _world(lambda a: C.Barrier()()),
     lambda a: np.zeros(1, np.float32), order=0)


def _or_empty(x):
    """MindSpore's uneven collectives give a shape-() tensor when nothing is received."""
    return x if x.size else np.zeros((), x.dtype)


def _draw_flat(data):
    return [arr(data, (data.draw(st.integers(0, 5)),))], {}


spec("AllGatherV", _draw_flat, _world(lambda a, x: C.AllGatherV()(x, [x.shape[0]])),
     lambda a, x: _or_empty(x))
spec("ReduceScatterV", _draw_flat, _world(lambda a, x: C.ReduceScatterV()(x, (x.shape[0],))),
     lambda a, x: _or_empty(x))
spec("AlltoAllV", _draw_flat,
     _world(lambda a, x: C.AlltoAllV()(x, [x.shape[0]], [x.shape[0]])), lambda a, x: _or_empty(x))
spec("AlltoAllVC", _draw_flat, _world(lambda a, x: C.AlltoAllVC()(x, [x.shape[0]])),
     lambda a, x: _or_empty(x))
spec("Reduce", lambda data: ([arr(data, data.draw(S.shapes(0, 3)))], {}),
     _world(lambda a, x: C.Reduce(0)(x)), lambda a, x: x)
spec("CollectiveGather", _draw_rows, _world(lambda a, x: C.CollectiveGather(0)(x)),
     lambda a, x: x)
spec("CollectiveScatter", _draw_rows, _world(lambda a, x: C.CollectiveScatter(0)(x)),
     lambda a, x: x)


def _neighbor_exchange(attrs, *xs):
    shapes = [list(x.shape) for x in xs]
    op = C.NeighborExchange([0] * len(xs), [0] * len(xs), shapes, shapes,
                            mstype.pytype_to_dtype(xs[0].asnumpy().dtype))
    return op(xs)


def _batch(attrs, x, *rest):
    op = C.BatchISendIRecv(["isend", "irecv"], [0, 0], [list(x.shape)],
                           [mstype.pytype_to_dtype(x.asnumpy().dtype)])
    return op((x,))


spec("NeighborExchange", _draw_broadcast, _world(_neighbor_exchange), lambda a, *xs: tuple(xs))
spec("BatchISendIRecv", _draw_broadcast, _world(_batch),
     lambda a, x, *rest: (np.zeros((), x.dtype), x), order=0,
     notes="not differentiated, as in MindSpore")
