"""Learning-rate schedules (Cells of the global step) and the per-step list builders, against
values from MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, int32, nn

# The rate at global steps 0..6, from MindSpore 2.10 (float32).
SCHEDULES = [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4),
     [0.1, 0.09740037, 0.09486832, 0.09240211, 0.09, 0.08766034, 0.0853815]),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True),
     [0.1, 0.1, 0.1, 0.1, 0.09, 0.09, 0.09]),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, is_stair=True),
     [0.1, 0.1, 0.1, 0.1, 0.002732373, 0.002732373, 0.002732373]),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.5, 4),
     [0.1 * np.exp(-0.5 * k) for k in range(7)]),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 2, is_stair=True),
     [0.1, 0.1, 0.06666667, 0.06666667, 0.05, 0.05, 0.04]),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 2),
     [0.1 / (1 + 0.5 * k / 2) for k in range(7)]),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 4),
     [0.1, 0.0868198, 0.055, 0.02318019, 0.01, 0.01, 0.01]),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5),
     [0.1, 0.08794229, 0.07363961, 0.055, 0.01, 0.01, 0.01]),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, update_decay_steps=True),
     [0.1, 0.08794229, 0.07363961, 0.055, 0.01, 0.06511352, 0.055]),
    (lambda: nn.WarmUpLR(0.1, 3),
     [0.0, 0.03333334, 0.06666667, 0.1, 0.1, 0.1, 0.1]),
]


@pytest.mark.parametrize("make, expected", SCHEDULES,
                         ids=[f"{i}" for i in range(len(SCHEDULES))])
def test_schedule_values(make, expected):
    schedule = make()
    assert isinstance(schedule, nn.LearningRateSchedule) and isinstance(schedule, nn.Cell)
    got = [schedule(Tensor(np.array([k], np.int32))) for k in range(7)]
    assert all(g.shape == (1,) and g.asnumpy().dtype == np.float32 for g in got)
    np.testing.assert_allclose([float(g.asnumpy()[0]) for g in got], expected, rtol=1e-6)


def test_schedule_output_is_float32_shaped_like_the_step():
    out = nn.ExponentialDecayLR(0.1, 0.9, 4)(Tensor(2, int32))
    assert out.shape == () and out.asnumpy().dtype == np.float32
    assert float(out.asnumpy()) == pytest.approx(0.094868325)


def test_optimizer_evaluates_the_schedule_before_each_step():
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([w], nn.WarmUpLR(0.3, 3))
    for _ in range(4):
        opt((Tensor(np.ones(1, np.float32)),))
    # steps 0..3 use 0, 0.1, 0.2, 0.3
    np.testing.assert_allclose(w.asnumpy(), [-0.6], rtol=1e-6)


def test_custom_schedule_subclass():
    class Halving(nn.LearningRateSchedule):
        def construct(self, global_step):
            return Tensor(0.5 ** global_step.asnumpy().astype(np.float32))

    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([w], Halving())
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [-1.75])


@pytest.mark.parametrize("make, error, match", [
    (lambda: nn.ExponentialDecayLR(1, 0.9, 4), TypeError, "'ExponentialDecayLR'.*'learning_rate'"),
    (lambda: nn.ExponentialDecayLR(0.1, -0.9, 4), ValueError, "'decay_rate' must be > 0"),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 0), ValueError, "'decay_steps' must be > 0"),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 2.0), TypeError, "'decay_steps' must be an int"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=1), TypeError, "'is_stair'"),
    (lambda: nn.CosineDecayLR(0.1, 0.01, 4), ValueError, "'max_lr' must be greater"),
    (lambda: nn.CosineDecayLR(0, 0.1, 4), TypeError, "'min_lr' must be a float"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0), ValueError, "'power' must be > 0"),
    (lambda: nn.WarmUpLR(0.1, -1), ValueError, "'warmup_steps' must be > 0"),
])
def test_schedule_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


# (builder, args, kwargs, MindSpore 2.10's list), equal float for float.
LISTS = [
    ("piecewise_constant_lr", ([2, 5, 6], [0.1, 0.05, 0.01]), {},
     [0.1, 0.1, 0.05, 0.05, 0.05, 0.01]),
    ("exponential_decay_lr", (0.1, 0.9, 6, 2, 1), {},
     [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002,
      0.08100000000000002]),
    ("exponential_decay_lr", (0.1, 0.9, 6, 1, 2), {"is_stair": True},
     [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002,
      0.08100000000000002]),
    ("natural_exp_decay_lr", (0.1, 0.5, 6, 2, 2), {},
     [0.1, 0.1, 0.06065306597126335, 0.06065306597126335, 0.036787944117144235,
      0.036787944117144235]),
    ("natural_exp_decay_lr", (0.1, 0.5, 6, 1, 2), {"is_stair": True},
     [0.1, 0.1, 0.036787944117144235, 0.036787944117144235, 0.013533528323661271,
      0.013533528323661271]),
    ("inverse_decay_lr", (0.1, 0.5, 6, 1, 3), {},
     [0.1, 0.08571428571428572, 0.07500000000000001, 0.06666666666666667, 0.06000000000000001,
      0.05454545454545454]),
    ("inverse_decay_lr", (0.1, 0.5, 6, 1, 2), {"is_stair": True},
     [0.1, 0.1, 0.06666666666666667, 0.06666666666666667, 0.05, 0.05]),
    ("cosine_decay_lr", (0.01, 0.1, 6, 1, 4), {},
     [0.1, 0.08681980515339464, 0.05500000000000001, 0.023180194846605363, 0.01, 0.01]),
    ("polynomial_decay_lr", (0.1, 0.01, 6, 1, 4, 0.5), {},
     [0.1, 0.08794228634059947, 0.07363961030678928, 0.05500000000000001, 0.01, 0.01]),
    ("polynomial_decay_lr", (0.1, 0.01, 9, 1, 3, 2.0), {"update_decay_epoch": True},
     [0.1, 0.05000000000000002, 0.020000000000000004, 0.01, 0.020000000000000004,
      0.012499999999999999, 0.01, 0.014444444444444444, 0.011111111111111113]),
    ("warmup_lr", (0.1, 6, 2, 2), {}, [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
]


@pytest.mark.parametrize("name, args, kwargs, expected", LISTS,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(LISTS)])
def test_dynamic_lr_lists_equal_mindspore(name, args, kwargs, expected):
    got = getattr(nn, name)(*args, **kwargs)
    assert isinstance(got, list)
    assert got == expected


def test_dynamic_lr_list_drives_an_optimizer():
    lrs = nn.piecewise_constant_lr([1, 3], [0.5, 0.25])
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.Momentum([w], lrs, 0.0)
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [-1.0])
    with pytest.raises(IndexError, match="exhausted"):
        opt((Tensor(np.ones(1, np.float32)),))


@pytest.mark.parametrize("call, error, match", [
    (lambda: nn.piecewise_constant_lr([2, 1], [0.1, 0.2]), ValueError, "increasing"),
    (lambda: nn.piecewise_constant_lr([2, 4], [0.1]), ValueError, "same length"),
    (lambda: nn.piecewise_constant_lr([2, 4], [0.1, 1]), TypeError, r"learning_rates\[1\]"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1), ValueError, "'total_step' must be > 0"),
    (lambda: nn.cosine_decay_lr(0.1, 0.1, 4, 1, 1), ValueError, "'max_lr' must be greater"),
    (lambda: nn.polynomial_decay_lr(0.1, 1, 4, 1, 1, 1.0), TypeError, "'end_learning_rate'"),
    (lambda: nn.warmup_lr(1, 4, 1, 1), TypeError, "'warmup_lr'.*'learning_rate'"),
])
def test_dynamic_lr_argument_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("make", [s[0] for s in SCHEDULES], ids=[f"{i}" for i in range(len(SCHEDULES))])
def test_schedule_replays_under_jit_from_each_step(make):
    schedule = make()
    jitted = ms.jit(schedule.construct)
    for k in range(5):
        step = Tensor(np.array([k], np.int32))
        assert np.array_equal(jitted(step).asnumpy(), schedule(step).asnumpy())
    assert jitted.stats["replays"] == 4, jitted.stats
