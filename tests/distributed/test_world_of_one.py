"""The data-parallel API in a plain process (a world of one), against MindSpore 2.10's recorded
signatures, defaults and errors (data/mindspore_comm.json, from data/make_mindspore_comm.py)."""
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, context, nn
from minispore import communication as comm
from minispore import run as launcher
from minispore._autodiff.engine import ready_hooks
from minispore._autodiff.tape import recording
from minispore.communication import comm_func
from minispore.ops import communication as ops_communication
from minispore.nn.wrap.grad_reducer import bucket_layout
from minispore.ops.operations import comm_ops as C
from minispore.testing import check_grads

with open(os.path.join(os.path.dirname(__file__), "data", "mindspore_comm.json")) as _f:
    FACTS = json.load(_f)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def clean_parallel_context():
    context.reset_auto_parallel_context()
    yield
    context.reset_auto_parallel_context()


def _ours(name):
    family, attr = name.split(".")
    if family == "ops":
        return getattr(C, attr).__init__
    if family == "communication":
        return getattr(comm, attr)
    if family == "comm_func":
        return getattr(comm_func, attr)
    if family == "ops_communication":
        obj = getattr(ops_communication, attr)
        return obj.__init__ if isinstance(obj, type) else obj
    return nn.DistributedGradReducer.__init__


@pytest.mark.parametrize("name", sorted(FACTS["signatures"]))
def test_signatures_match_mindspore(name):
    assert str(inspect.signature(_ours(name))) == FACTS["signatures"][name]


def test_constants_and_context_defaults_match_mindspore():
    for name in ("HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP"):
        assert getattr(comm, name) == FACTS["constants"][name]
    for key, value in FACTS["constants"]["ReduceOp"].items():
        assert getattr(C.ReduceOp, key) == value
    for key, value in FACTS["constants"]["ParallelMode"].items():
        assert getattr(context.ParallelMode, key) == value
    for key, value in FACTS["context"].items():
        assert context.get_auto_parallel_context(key) == value, key


_ERRORS = {
    "get_context_bogus": lambda: context.get_auto_parallel_context("bogus"),
    "set_context_bogus": lambda: context.set_auto_parallel_context(bogus=1),
    "parallel_mode_bad": lambda: context.set_auto_parallel_context(parallel_mode="xx"),
    "gradients_mean_int": lambda: context.set_auto_parallel_context(gradients_mean=1),
    "device_num_zero": lambda: context.set_auto_parallel_context(device_num=0),
    "init_int": lambda: comm.init(1),
    "init_nccl": lambda: comm.init("nccl"),
    "init_hccl": lambda: comm.init("hccl"),
    "init_unknown": lambda: comm.init("foo"),
    "set_comm_ops_inplace_int": lambda: ops_communication.set_comm_ops_inplace(1),
    "set_comm_ops_inplace_name": lambda: ops_communication.set_comm_ops_inplace(True, ["bogus"]),
    "p2pop_bad_op": lambda: ops_communication.P2POp("send", Tensor([1.0]), 0),
    "p2pop_tag": lambda: ops_communication.P2POp("isend", Tensor([1.0]), 0, tag=1),
    "new_group_tuple": lambda: ops_communication.new_group((0, 1)),
    "init_process_group_nccl": lambda: ops_communication.init_process_group("nccl"),
}


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_errors_match_mindspore(case):
    kind, message = FACTS["errors"][case]
    with pytest.raises(getattr(__builtins__, kind, None) or eval(kind)) as info:
        _ERRORS[case]()
    assert str(info.value) == message


def test_before_init_in_a_fresh_process():
    code = ("import json\nfrom minispore import communication as c\n"
            "out = [c.get_rank(), c.get_group_size(), c.get_local_rank(), c.get_local_rank_size()]\n"
            "g = [c.GlobalComm.BACKEND, c.GlobalComm.WORLD_COMM_GROUP, c.GlobalComm.INITED]\n"
            "try:\n    c.create_group('g', [0])\nexcept RuntimeError as e:\n    err = str(e)\n"
            "print(json.dumps([out, g, err]))\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                        "RANK_ID", "RANK_SIZE")}
    env["PYTHONPATH"] = ROOT
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, check=False)
    out, g, err = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == FACTS["before_init"]
    assert g == FACTS["global_comm_before_init"]
    assert err == FACTS["errors"]["create_group_before_init"][1]


def test_init_opens_a_world_of_one():
    comm.init()
    comm.init()
    assert comm.GlobalComm.INITED and comm.GlobalComm.BACKEND == "mccl"
    assert comm.GlobalComm.WORLD_COMM_GROUP == "mccl_world_group"
    assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
    assert (comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1)
    assert comm.get_process_group_ranks() == [0]
    comm.create_group("solo", [0])
    assert comm.get_group_size("solo") == 1
    assert comm.get_world_rank_from_group_rank("solo", 0) == 0
    assert comm.get_group_rank_from_world_rank(0, "solo") == 0
    with pytest.raises(ValueError, match="already exists"):
        comm.create_group("solo", [0])
    comm.destroy_group("solo")
    with pytest.raises(RuntimeError, match="does not exist"):
        C.AllReduce(group="solo")(Tensor(np.ones(2)))
    with pytest.raises(ValueError, match=r"must be in \[0, 1\)"):
        comm.create_group("two", [0, 1])
    with pytest.raises(TypeError, match="'group' must be type of string"):
        comm.get_rank(3)


def test_collectives_are_the_identity_in_a_world_of_one():
    comm.init()
    x = np.arange(6.0).reshape(2, 3)
    for prim in (C.AllReduce("max"), C.AllReduce("prod"), C.AllGather(), C.ReduceScatter("min"),
                 C.AlltoAll(1, 0, 1)):
        out = prim(Tensor(x))
        np.testing.assert_array_equal(out.asnumpy(), x)
    assert C.AllReduce()(Tensor(np.array([1, 2], np.int32))).asnumpy().dtype == np.int32
    assert C.AllReduce()(Tensor(x.astype(np.float16))).asnumpy().dtype == np.float16
    _, b = C.Broadcast(0)((Tensor(x), Tensor(x[0])))
    np.testing.assert_array_equal(b.asnumpy(), x[0])
    barrier = C.Barrier()()
    assert barrier.shape == (1,) and barrier.dtype == ms.float32


def test_collective_argument_errors():
    comm.init()
    with pytest.raises(ValueError, match="'op' must be one of"):
        C.AllReduce("mean")
    with pytest.raises(TypeError, match="'group' must be a str"):
        C.AllGather(group=0)
    with pytest.raises(TypeError, match="'root_rank' must be an int"):
        C.Broadcast(0.5)
    with pytest.raises(ValueError, match="'root_rank' must be in"):
        C.Broadcast(1)((Tensor(np.ones(2)),))
    with pytest.raises(ValueError, match="'split_count' must equal the group size 1"):
        C.AlltoAll(2, 0, 0)(Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="at least 1 dimension"):
        C.AllGather()(Tensor(np.array(1.0)))
    with pytest.raises(TypeError, match="not defined for complex"):
        C.AllReduce("max")(Tensor(np.ones(2, np.complex64)))
    with pytest.raises(RuntimeError, match="nothing was sent"):
        C.Receive(99, 0, [2], ms.float32)()


def test_comm_func_in_a_world_of_one():
    comm.init()
    x = Tensor(np.arange(4.0))
    out, handle = comm_func.all_reduce(x)
    assert handle is None
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    out, handle = comm_func.all_reduce(x, "max", async_op=True)
    handle.wait()
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(comm_func.all_gather_into_tensor(x)[0].asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(comm_func.reduce_scatter_tensor(x)[0].asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(comm_func.broadcast(x, 0).asnumpy(), x.asnumpy())
    comm_func.barrier()
    for out in (comm_func.reduce(x, 0, "min"), comm_func.gather_into_tensor(x),
                comm_func.scatter_tensor(x)):
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    comm_func.send(x, 0, tag=5)
    np.testing.assert_array_equal(comm_func.recv(Tensor(np.zeros(4)), 0, tag=5).asnumpy(),
                                  x.asnumpy())
    with pytest.raises(TypeError, match="For all_reduce, the input tensor must be tensor"):
        comm_func.all_reduce(np.ones(2))
    with pytest.raises(TypeError, match="must be one of sum, prod, min, max"):
        comm_func.all_reduce(x, "avg")


def test_comm_func_gradients():
    comm.init()
    x = Tensor(np.array([1.0, -2.0, 3.0]))
    check_grads(lambda t: comm_func.all_reduce(t, "prod")[0] * t, (x,), order=2)
    check_grads(lambda t: comm_func.broadcast(t * t, 0), (x,), order=2)


def _grads(shapes, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(Tensor(rng.standard_normal(s).astype(dtype)) for s in shapes)


def test_reducer_divides_by_the_degree_it_is_given():
    net = nn.Dense(3, 2)
    grads = _grads([(2, 3), (2,)])
    out = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=4)(grads)
    assert isinstance(out, tuple) and len(out) == 2
    for g, o in zip(grads, out):
        np.testing.assert_allclose(o.asnumpy(), g.asnumpy() / 4, rtol=1e-7)
    out = nn.DistributedGradReducer(net.trainable_params(), mean=False, degree=4)(grads)
    np.testing.assert_array_equal(out[0].asnumpy(), grads[0].asnumpy())


def test_reducer_keeps_each_gradient_dtype():
    net = nn.Dense(3, 2, dtype=ms.float64)
    reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=3)
    grads = (Tensor(np.full((2, 3), 1 / 3)), Tensor(np.full(2, 1 / 3 + 1e-12)))
    out = reducer(grads)
    assert out[1].dtype == ms.float64
    np.testing.assert_array_equal(out[1].asnumpy(), np.full(2, 1 / 3 + 1e-12) * (1 / 3))


def test_reducer_means_float16_in_float32():
    net = nn.Dense(3, 2, dtype=ms.float16)
    grads = (Tensor(np.full((2, 3), 0.1, np.float16)), Tensor(np.full(2, 60000.0, np.float16)))
    out = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=3)(grads)
    assert out[0].dtype == ms.float16
    expected = (np.float32(np.float16(0.1)) * np.float32(1 / 3)).astype(np.float16)
    np.testing.assert_array_equal(out[0].asnumpy(), np.full((2, 3), expected))


def test_reducer_reads_the_context_at_construction():
    net = nn.Dense(3, 2)
    context.set_auto_parallel_context(gradients_mean=True)
    reducer = nn.DistributedGradReducer(net.trainable_params())
    context.set_auto_parallel_context(gradients_mean=False)
    assert reducer.mean is True and reducer.degree == 1


def test_reducer_argument_errors():
    params = nn.Dense(3, 2).trainable_params()
    with pytest.raises(ValueError, match="'degree' must be a positive int"):
        nn.DistributedGradReducer(params, degree=0)
    with pytest.raises(TypeError):
        nn.DistributedGradReducer(params, mean=1)
    with pytest.raises(ValueError, match="expected 2 gradients"):
        nn.DistributedGradReducer(params)(_grads([(2, 3)]))


def test_reducer_is_differentiable_when_gradients_are_recorded():
    comm.init()
    params = nn.Dense(3, 2, dtype=ms.float64).trainable_params()
    reducer = nn.DistributedGradReducer(params, mean=True, degree=2)

    def fn(a, b):
        ra, rb = reducer((a * a, b))
        return ra.sum() + (rb * rb).sum()
    check_grads(fn, (Tensor(np.ones((2, 3))), Tensor(np.arange(2.0))), order=2)


def test_bucket_layout():
    shapes = [(64, 64), (64,), (512, 512), (4,)]
    f32 = [np.dtype(np.float32)] * 4
    assert bucket_layout(shapes, f32) == [[3], [2, 1, 0]]
    assert bucket_layout(shapes, f32, first_cap=2 << 20) == [[3, 2, 1, 0]]
    assert bucket_layout(shapes, f32, splits=[2], first_cap=2 << 20) == [[3, 2], [1, 0]]
    assert bucket_layout(shapes, f32, first_cap=2 << 20, cap=8) == [[3, 2, 1, 0]]
    mixed = [np.dtype(np.float32), np.dtype(np.float64)] * 2
    assert bucket_layout(shapes, mixed) == [[3], [2], [1], [0]]


def _train(parallel, sens=None):
    ms.set_seed(3)
    if parallel:
        context.set_auto_parallel_context(parallel_mode=context.ParallelMode.DATA_PARALLEL,
                                          gradients_mean=True)
    net = nn.Dense(4, 3)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=sens)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((8, 3)).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    return step, losses, [p.asnumpy() for p in net.trainable_params()]


def test_train_one_step_cell_in_data_parallel_mode_equals_the_plain_step():
    plain_step, plain_losses, plain_params = _train(False)
    assert not plain_step.reducer_flag and isinstance(plain_step.grad_reducer, nn.Identity)
    dp_step, dp_losses, dp_params = _train(True)
    assert dp_step.reducer_flag and isinstance(dp_step.grad_reducer, nn.DistributedGradReducer)
    assert dp_step.mean is True and dp_step.degree == 1
    assert plain_losses == dp_losses
    for a, b in zip(plain_params, dp_params):
        np.testing.assert_array_equal(a, b)


def test_ops_communication_in_a_world_of_one():
    script = os.path.join(os.path.dirname(__file__), "scripts", "comm_functions.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "OMPI_", "PMIX_"))}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0 of 1: ops.communication OK" in proc.stdout


def test_ops_communication_in_place_switch():
    assert ms.ops.all_reduce is ops_communication.all_reduce
    try:
        ops_communication.set_comm_ops_inplace(False, ["broadcast"])
        with pytest.raises(ValueError, match="Non-inplace mode is currently not supported"):
            ops_communication.broadcast(Tensor(np.ones(2)), 0)
    finally:
        ops_communication.set_comm_ops_inplace(True)


def _watch(params, fired):
    """A forward wrapper that registers readiness hooks for `params` on the recording tape."""
    def watched(fn):
        def forward(*args):
            out = fn(*args)
            tape = recording()
            ready_hooks[tape] = {
                tape.params[id(p)]: (lambda g, name=p.name: fired.append(
                    (name, None if g is None else g.asnumpy().copy())))
                for p in params}
            return out
        return forward
    return watched


def test_readiness_hooks_fire_once_each_gradient_is_final():
    ms.set_seed(3)
    net = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    unused = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="unused")
    params = [*net.trainable_params(), unused]
    fired = []
    forward = _watch(params, fired)(lambda x: (net(x) ** 2).sum())
    x = Tensor(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
    _, grads = ms.value_and_grad(forward, None, params)(x)
    # the unused weight first (final before the walk), then each layer's weight and bias (one
    # Dense node reads both) as the walk passes them, last layer first
    assert [name for name, _ in fired] == ["unused", "2.weight", "2.bias", "0.weight", "0.bias"]
    got = dict(fired)
    assert got["unused"] is None
    for p, g in zip(params[:-1], grads[:-1]):
        np.testing.assert_array_equal(got[p.name], g.asnumpy())
    assert not ready_hooks


def test_a_weight_read_twice_is_final_after_its_earliest_reader():
    w = ms.Parameter(Tensor(np.array([1.5, -2.0, 0.5])), name="w")
    fired = []
    forward = _watch([w], fired)(lambda x: (ms.ops.relu(x * w) * w * x).sum())
    x = Tensor(np.array([1.0, 2.0, -3.0]))
    g = ms.grad(forward, None, w)(x)
    assert len(fired) == 1
    np.testing.assert_array_equal(fired[0][1], g.asnumpy())
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy() ** 2 * w.asnumpy() *
                               (x.asnumpy() * w.asnumpy() > 0))


def test_readiness_hooks_are_ignored_by_nested_walks():
    w = ms.Parameter(Tensor(np.array([1.5, -2.0])), name="w")
    fired = []
    inner = ms.grad(_watch([w], fired)(lambda x: (w * x * x).sum()), None, w)
    outer = ms.grad(lambda x: inner(x).sum(), 0)
    np.testing.assert_allclose(outer(Tensor(np.array([3.0, 4.0]))).asnumpy(), [6.0, 8.0])
    assert fired == []


def test_device_num_set_by_the_user_is_the_degree():
    context.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True,
                                      device_num=4)
    net = nn.Dense(4, 3)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    assert step.degree == 4 and step.grad_reducer.degree == 4


def test_parallel_context_round_trip():
    context.set_auto_parallel_context(parallel_mode="hybrid_parallel", device_num=8,
                                      global_rank=3, all_reduce_fusion_config=[2, 5],
                                      parameter_broadcast=True)
    assert context.get_auto_parallel_context("device_num") == 8
    assert context.get_auto_parallel_context("all_reduce_fusion_config") == [2, 5]
    with pytest.raises(ValueError, match="strictly increasing"):
        context.set_auto_parallel_context(all_reduce_fusion_config=[5, 2])
    context.reset_auto_parallel_context()
    assert context.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert not context.parallel_key_is_set("device_num")


@pytest.mark.parametrize("flavour,expected", [
    ("mpich", ["-n", "4", "-f", "hosts", "-ppn", "2", "-bind-to", "core"]),
    ("openmpi", ["-n", "4", "--oversubscribe"]),
])
def test_launcher_builds_the_mpiexec_command(monkeypatch, flavour, expected):
    monkeypatch.setattr(launcher, "_flavour", lambda mpiexec: flavour)
    args = launcher._parser().parse_args(
        ["--worker_num=4", "--local_worker_num=2", "--hostfile=hosts", "--bind_core=True",
         "--log_dir=logs", "train.py", "--lr", "0.1"])
    cmd = launcher.mpiexec_command(args, mpiexec="/x/mpiexec")
    assert cmd[0] == "/x/mpiexec" and cmd[1:1 + len(expected)] == expected
    if flavour == "openmpi":
        assert ["--hostfile", "hosts"] == cmd[cmd.index("--hostfile"):cmd.index("--hostfile") + 2]
        assert "ppr:2:node" in cmd and "core" in cmd
    tail = cmd[cmd.index(sys.executable):]
    assert tail[:3] == [sys.executable, "-m", "minispore.run"]
    assert tail[4].endswith(os.path.join("logs", "worker_RANK.log"))
    assert tail[-2:] == ["--lr", "0.1"] and tail[-3].endswith("train.py")


def test_launcher_environment_is_read_without_mpi(monkeypatch):
    from minispore.communication import _backend
    monkeypatch.setenv("PMI_RANK", "2")
    monkeypatch.setenv("PMI_SIZE", "4")
    monkeypatch.setenv("MPI_LOCALRANKID", "0")
    monkeypatch.setenv("MPI_LOCALNRANKS", "2")
    assert _backend.launcher_world() == (2, 4, 0, 2)
