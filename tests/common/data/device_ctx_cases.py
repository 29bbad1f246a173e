"""DeviceCtx cases for MindSpore's or minispore's module (`ms`): make_device_ctx.py records
MindSpore 2.10's answers in device_ctx.json; tests/common/test_device_ctx.py compares
minispore's."""
import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the case records which type)
        return type(e).__name__
    return None


def _enter(ms, *args):
    with ms.DeviceCtx(*args):
        pass


def device_and_id(ms):
    with ms.DeviceCtx("CPU", 3) as ctx:
        inside = [ms.get_context("device_target"), ms.get_context("device_id"), ctx.device_id]
    after = [ms.get_context("device_target"), ms.get_context("device_id")]
    with ms.DeviceCtx("meta"):
        meta = ms.get_context("device_target")
    return {"inside": inside, "after": after, "meta": meta}


def errors(ms):
    return [_error(lambda a=a: _enter(ms, *a)) for a in (("foo",), ("CPU", -1), ("cpu",))]


def meta_parameters(ms):
    initializer = ms.common.initializer.initializer
    with ms.DeviceCtx("meta"):
        made = ms.Parameter(initializer("ones", [2, 3], ms.float32), name="made")
        given = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="given")
    described = [made.has_init, given.has_init, list(made.shape), str(made.dtype),
                 repr(made), list(given.shape)]
    reads = [_error(made.asnumpy), _error(given.asnumpy), _error(made.init_data)]
    made.set_data(ms.Tensor(np.full((2, 3), 2.0, np.float32)))
    return {"described": described, "reads": reads,
            "after": [made.asnumpy().tolist(), made.has_init]}


def meta_network(ms):
    with ms.DeviceCtx("meta"):
        net = ms.nn.Dense(3, 2)
    net.to_empty(device="CPU")
    return list(net(ms.Tensor(np.ones((1, 3), np.float32))).shape)


def to_empty_keeps_meta_without_a_device(ms):
    with ms.DeviceCtx("meta"):
        net = ms.nn.Dense(3, 2)
    net.to_empty()
    return _error(net.weight.asnumpy)


# MindSpore: a failed read of a meta tensor leaves its op pipeline failing later ops, so the
# network runs first
CASES = [meta_network, device_and_id, errors, meta_parameters,
         to_empty_keeps_meta_without_a_device]


def run_all(ms):
    return {case.__name__: case(ms) for case in CASES}
