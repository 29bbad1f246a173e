"""The nn.Cell API beyond registration and calling: flags, sub-cell and buffer lookup, lazy
parameter data, declared inputs, shard (recorded, a no-op on one process), jit config, extra
state and the state-dict hooks. Expected behaviour is MindSpore 2.10's (CPU)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn
from minispore.common.initializer import Normal, initializer


class Extra(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(2, 2)
        self.k = 5

    def get_extra_state(self):
        return {"k": self.k}

    def set_extra_state(self, state):
        self.k = state["k"]

    def construct(self, x):
        return self.d(x)


def test_flags_names_and_lookup():
    net = Extra()
    assert net.add_flags(a=1) is net and net.a == 1 and net.get_flags() == {"a": 1}
    net.add_flags_recursive(b=2)
    assert net.d.get_flags() == {"b": 2} and net.get_flags() == {"a": 1, "b": 2}
    assert net.cls_name == "Extra" and net.create_time > 0
    assert net.exist_names == {"d.weight", "d.bias"}
    net.check_names()
    assert net.get_sub_cell("d") is net.d and net.get_sub_cell("") is net
    with pytest.raises(AttributeError, match="zz"):
        net.get_sub_cell("zz")
    net.d.register_buffer("buf", Tensor([1.0]))
    assert net.get_buffer("d.buf").asnumpy().tolist() == [1.0]
    net.update_parameters_name("m.")
    assert net.param_prefix == "m." and net.d.weight.name == "m.d.weight"


def test_check_names_refuses_duplicates():
    net = nn.SequentialCell([nn.Dense(2, 2), nn.Dense(2, 2)])
    net[1].weight.name = net[0].weight.name
    with pytest.raises(ValueError, match="more than once"):
        net.check_names()


def test_init_parameters_data_draws_lazy_parameters():
    net = nn.Dense(2, 3)
    net.extra = Parameter(initializer(Normal(), [4], ms.float32), name="extra")
    out = net.init_parameters_data()
    assert set(out) == set(net.get_parameters())
    assert all(not p.has_init for p in out)


def test_inputs_shard_and_jit_config_are_recorded():
    net = nn.Dense(2, 3)
    assert net.get_inputs() is None
    x = Tensor(np.ones((1, 2), np.float32))
    net.set_inputs(x)
    assert net.get_inputs() == (x,)
    assert net.shard(((1, 1),)) is None
    with pytest.raises(TypeError, match="in_strategy"):
        net.shard([1, 1])
    assert net.jit_config_dict == {}
    net.set_jit_config(ms.JitConfig(jit_level="O1"))
    assert net.jit_config_dict["jit_level"] == "O1"
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O5")
    with pytest.raises(TypeError, match="JitConfig"):
        net.set_jit_config({"jit_level": "O1"})
    np.testing.assert_allclose(net(x).asnumpy().shape, (1, 3))


def test_extra_state_round_trip():
    net = Extra()
    sd = net.state_dict()
    assert list(sd) == ["_extra_state", "d.weight", "d.bias"] and sd["_extra_state"] == {"k": 5}
    sd["_extra_state"] = {"k": 9}
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert net.k == 9
    with pytest.raises(RuntimeError, match="get_extra_state"):
        nn.Dense(2, 2).get_extra_state()


def test_state_dict_hooks_run_with_mindspore_arguments():
    net = nn.Dense(2, 3)
    calls = []
    pre = net.register_state_dict_pre_hook(lambda *a: calls.append(("pre", a[1:])))
    net.register_state_dict_post_hook(lambda c, sd, prefix, meta: sd.pop("bias"))
    net.register_load_state_dict_pre_hook(lambda c, sd, *rest: calls.append(("lpre", len(rest))))
    net.register_load_state_dict_post_hook(lambda c, keys: calls.append(("lpost", keys)))
    sd = net.state_dict()
    assert list(sd) == ["weight"] and calls == [("pre", ("", False))]
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []
    assert calls[1] == ("lpre", 6) and calls[2] == ("lpost", result)
    pre.remove()
    calls.clear()
    net.state_dict()
    assert calls == []


def test_enable_backward_hook():
    net = nn.Dense(2, 2)
    assert not net.enable_backward_hook
    h = net.register_backward_hook(lambda cell, gi, go: None)
    assert net.enable_backward_hook
    h.remove()
    assert not net.enable_backward_hook


def test_mixed_precision_type():
    from minispore.nn.cell import MixedPrecisionType as M
    net = nn.Dense(2, 2)
    assert net.get_mixed_precision_type() is M.NOTSET
    net.to_float(ms.float16)
    assert net.get_mixed_precision_type() is M.FP16  # MindSpore 2.10 reports the same
    other = nn.Dense(2, 2)
    other.set_mixed_precision_type(M.FP16)
    assert other(Tensor(np.ones((1, 2), np.float32))).dtype == ms.float16
    other.set_mixed_precision_type(M.NOTSET)
    assert other(Tensor(np.ones((1, 2), np.float32))).dtype == ms.float32
    with pytest.raises(ValueError, match="BF16"):
        other.set_mixed_precision_type(M.BF16)
