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


# NeighborExchangeV2 in a world of one: one direction d sent to rank 0 itself, which receives it
# on the opposite side; lens are [top, bottom, left, right].
_UP = {0: True, 1: True, 7: True}
_DOWN = {3: True, 4: True, 5: True}
_LEFT = {5: True, 6: True, 7: True}
_RIGHT = {1: True, 2: True, 3: True}


def _draw_halo(data):
    n, c = data.draw(st.integers(0, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    d = data.draw(st.integers(0, 7))
    rows, cols = data.draw(st.integers(1, h)), data.draw(st.integers(1, w))
    return [arr(data, (n, c, h, w))], {"d": d, "rows": rows, "cols": cols}


def _halo_lens(d, rows, cols):
    """(send_lens, recv_lens) for sending in direction d and receiving on the opposite side."""
    send = [rows if d in _UP else 0, rows if d in _DOWN else 0,
            cols if d in _LEFT else 0, cols if d in _RIGHT else 0]
    recv = [send[1], send[0], send[3], send[2]]
    return send, recv


def _halo_op(a, grad=False):
    d = a["d"]
    ids_send, ids_recv = [-1] * 8, [-1] * 8
    ids_send[d], ids_recv[(d + 4) % 8] = 0, 0
    send, recv = _halo_lens(d, a["rows"], a["cols"])
    if grad:
        return C.NeighborExchangeV2Grad(ids_recv, recv, ids_send, send, "NCHW")
    return C.NeighborExchangeV2(ids_send, send, ids_recv, recv, "NCHW")


def _rows_cols(d, lens, h, w):
    top, bottom, left, right = lens
    rows = slice(0, top) if d in _UP else slice(h - bottom, h) if d in _DOWN else slice(0, h)
    cols = slice(0, left) if d in _LEFT else slice(w - right, w) if d in _RIGHT else slice(0, w)
    return rows, cols


def _halo_reference(a, x):
    d = a["d"]
    send, recv = _halo_lens(d, a["rows"], a["cols"])
    h, w = x.shape[2:]
    rows, cols = _rows_cols(d, send, h, w)
    out = np.zeros(x.shape[:2] + (h + recv[0] + recv[1], w + recv[2] + recv[3]), x.dtype)
    out[:, :, recv[0]:recv[0] + h, recv[2]:recv[2] + w] = x
    block = x[:, :, rows, cols]
    e = (d + 4) % 8  # the band it lands in, of the padded output
    top, bottom, left, right = recv
    r = slice(0, top) if e in _UP else slice(top + h, top + h + bottom) if e in _DOWN else \
        slice(top, top + h)
    c = slice(0, left) if e in _LEFT else slice(left + w, left + w + right) if e in _RIGHT else \
        slice(left, left + w)
    out[:, :, r, c] = block
    return out


def _draw_halo_grad(data):
    (x,), a = _draw_halo(data)
    return [np.asarray(_halo_reference(a, x))], a


def _halo_grad_reference(a, dy):
    """The adjoint of the (linear) exchange: J^T dy, with J built column by column."""
    send, recv = _halo_lens(a["d"], a["rows"], a["cols"])
    shape = dy.shape[:2] + (dy.shape[2] - recv[0] - recv[1], dy.shape[3] - recv[2] - recv[3])
    basis = np.eye(int(np.prod(shape)), dtype=dy.dtype)
    columns = [_halo_reference(a, e.reshape(shape)).reshape(-1) for e in basis]
    jacobian = np.stack(columns) if columns else np.zeros((0, dy.size), dy.dtype)
    return (jacobian @ dy.reshape(-1)).reshape(shape)


spec("NeighborExchangeV2", _draw_halo, _world(lambda a, x: _halo_op(a)(x)), _halo_reference)
spec("NeighborExchangeV2Grad", _draw_halo_grad, _world(lambda a, dy: _halo_op(a, True)(dy)),
     _halo_grad_reference)
