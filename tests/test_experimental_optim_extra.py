"""experimental.optim Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD: updates against MindSpore 2.10 (CPU) numbers, state
names, parameter groups, a StepLR scheduler, signatures and argument checks.

The MindSpore numbers were made with /tmp/msvenv (MindSpore 2.10, CPU) by this script; each
list is the final [dense.weight, bn.gamma, bias], flattened::

    import numpy as np, mindspore as ms
    from mindspore import Parameter, Tensor
    from mindspore.experimental import optim
    from mindspore.experimental.optim import lr_scheduler
    # INITIAL and grad_for as below
    def groups(ps):
        return [{"params": ps[:1], "lr": 0.05, "weight_decay": 0.2}, {"params": ps[1:]}]
    CONFIGS = {   # 5 steps
        "Adamax": lambda ps: optim.Adamax(ps, weight_decay=0.1, maximize=True),
        "Adamax_groups": lambda ps: optim.Adamax(groups(ps), betas=(0.8, 0.7), eps=1e-3),
        "NAdam": lambda ps: optim.NAdam(ps, weight_decay=0.1),
        "NAdam_groups": lambda ps: optim.NAdam(groups(ps), betas=(0.8, 0.7), momentum_decay=0.1),
        "RAdam": lambda ps: optim.RAdam(ps, weight_decay=0.1),
        "RAdam_rect": lambda ps: optim.RAdam(groups(ps), betas=(0.8, 0.3)),
        # ... and the other entries of CONFIGS below, as written there
    }
    EIGHT = {     # 8 steps, StepLR(step_size=2, gamma=0.5) stepped after each
        "RAdam_8": lambda ps: optim.RAdam(groups(ps), betas=(0.8, 0.9)),
        # ... and the other entries of EIGHT below, as written there
    }
    for name, make in {**CONFIGS, **EIGHT}.items():
        ps = [Parameter(Tensor(v.copy()), name=n) for n, v in INITIAL.items()]
        opt = make(ps)
        sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if name in EIGHT else None
        for step in range(8 if name in EIGHT else 5):
            opt(tuple(Tensor(grad_for(p.shape, step)) for p in ps))
            if sched is not None:
                sched.step()
        print(name, np.concatenate([p.asnumpy().ravel() for p in ps]).tolist())
"""
import inspect

import numpy as np
import pytest

from minispore import Tensor
from minispore.experimental import optim
from minispore.experimental.optim import lr_scheduler
from tests.test_experimental_optim import INITIAL, grad_for, make_params  # the same fixture


def groups(ps):
    return [{"params": ps[:1], "lr": 0.05, "weight_decay": 0.2}, {"params": ps[1:]}]


CONFIGS = {
    "Adamax": lambda ps: optim.Adamax(ps, weight_decay=0.1, maximize=True),
    "Adamax_groups": lambda ps: optim.Adamax(groups(ps), betas=(0.8, 0.7), eps=1e-3),
    "NAdam": lambda ps: optim.NAdam(ps, weight_decay=0.1),
    "NAdam_groups": lambda ps: optim.NAdam(groups(ps), betas=(0.8, 0.7), momentum_decay=0.1),
    "RAdam": lambda ps: optim.RAdam(ps, weight_decay=0.1),
    "RAdam_rect": lambda ps: optim.RAdam(groups(ps), betas=(0.8, 0.3)),
    "Adadelta": lambda ps: optim.Adadelta(ps, weight_decay=0.1, maximize=True),
    "Adadelta_groups": lambda ps: optim.Adadelta(groups(ps), rho=0.5, eps=1e-3),
    "Rprop": lambda ps: optim.Rprop(ps, maximize=True),
    "Rprop_groups": lambda ps: optim.Rprop([{"params": ps[:1], "lr": 0.05, "etas": (0.3, 1.5)},
                                            {"params": ps[1:]}], step_sizes=(1e-3, 0.02)),
    "ASGD": lambda ps: optim.ASGD(ps, lr=0.1, weight_decay=0.1, maximize=True),
    "ASGD_groups": lambda ps: optim.ASGD(groups(ps), lambd=0.1, alpha=0.5, t0=2.0),
}
EIGHT = {
    "RAdam_8": lambda ps: optim.RAdam(groups(ps), betas=(0.8, 0.9)),
    "Adamax_8": lambda ps: optim.Adamax(ps, lr=0.1),
    "NAdam_8": lambda ps: optim.NAdam(ps, lr=0.1),
    "Adadelta_8": lambda ps: optim.Adadelta(ps, lr=0.5),
    "Rprop_8": lambda ps: optim.Rprop(ps, lr=0.1),
    "ASGD_8": lambda ps: optim.ASGD(ps, lr=0.1, lambd=0.1, t0=3.0),
}

MINDSPORE = {
    "Adamax": [0.50370723, -1.19898975, 0.306075484, 2.00051832, -0.704200745, 1.09977424,
               0.495918691, -0.105125472, 0.0552645475, -0.397205651, 0.904601812],
    "Adamax_groups": [0.355061412, -1.22182965, 0.101215549, 1.90847373, -0.520985842,
                      1.04064858, 0.504449606, -0.0932643935, 0.0437922291, -0.401847988,
                      0.894321322],
    "NAdam": [0.497963935, -1.20233357, 0.293559849, 1.99776661, -0.698076248, 1.09887087,
              0.501322746, -0.0950967968, 0.0437320024, -0.399508834, 0.895982563],
    "NAdam_groups": [0.438958377, -1.25519836, 0.129719511, 1.91412675, -0.632528901,
                     1.05121613, 0.501672745, -0.0947788879, 0.0433688015, -0.399133921,
                     0.896014094],
    "RAdam": [0.495583177, -1.20098078, 0.298132062, 1.99920297, -0.696995318, 1.09760213,
              0.502148688, -0.0971792638, 0.0450045951, -0.401986122, 0.892036915],
    "RAdam_rect": [0.287460983, -1.2330693, 0.200504109, 1.91119206, -0.547166049, 0.950237513,
                   0.502231777, -0.0972920209, 0.0450253263, -0.40187183, 0.892787755],
    "RAdam_8": [0.316379428, -1.18885183, 0.226545602, 1.9432137, -0.567088246, 1.00882137,
                0.5018574, -0.098041229, 0.0466692671, -0.402032226, 0.894448459],
    "Adamax_8": [0.333679765, -1.18643594, 0.0378630385, 1.93928695, -0.502588034, 1.12885857,
                 0.659161806, 0.110903099, -0.1656342, -0.527917027, 0.699807882],
    "NAdam_8": [0.400784075, -1.24767089, 0.0568375513, 1.96972942, -0.56542325, 1.1055361,
                0.593245685, 0.134624407, -0.192187309, -0.428447038, 0.685359299],
    "Adadelta": [0.501079142, -1.19131708, 0.310275406, 2.0009346, -0.700134456, 1.10160494,
                 0.498124897, -0.10788665, 0.0613281876, -0.401892096, 0.905116022],
    "Adadelta_groups": [0.498785347, -1.20466506, 0.291514874, 1.99456954, -0.697972238,
                        1.09626007, 0.504450142, 0.0107342079, -0.104480788, -0.325002611,
                        0.833285868],
    "Rprop": [0.512499988, -1.1918, 0.335200012, 2.01750016, -0.727999985, 1.0875001,
              0.487500012, -0.153679997, 0.0936000049, -0.408200026, 0.927999973],
    "Rprop_groups": [0.475799978, -1.20850003, 0.244999975, 1.97220004, -0.654000044,
                     1.12420011, 0.512499988, -0.0463200025, 0.00639999798, -0.391799986,
                     0.871999979],
    "ASGD": [0.613747299, -0.754746735, 0.494580209, 1.90799117, -0.695403337, 1.26933086,
             0.404324174, -0.285125434, 0.581052959, -0.420708239, 1.26078606],
    "ASGD_groups": [0.396238536, -1.30393398, 0.174976572, 1.85194767, -0.635235369,
                    0.910331249, 0.505055308, -0.0799374729, -0.00443517603, -0.394331455,
                    0.853471816],
    "Adadelta_8": [0.498860568, -1.20177352, 0.295814544, 1.99986565, -0.698034108, 1.09952605,
                   0.501020372, -0.0959450826, 0.0458208211, -0.399810731, 0.896433353],
    "Rprop_8": [0.387499988, -1.59649611, -0.131200001, 1.8125, -0.37499994, 1.21000004,
                0.610000014, 0.246719986, -0.576080024, -0.238799974, 0.574999928],
    "ASGD_8": [0.325191259, -1.44091582, 0.0948129743, 1.91488004, -0.58736062, 0.896263361,
               0.606880665, 0.100915611, -0.38882181, -0.344412446, 0.391798228],
}


def run(name):
    ps = make_params()
    opt = {**CONFIGS, **EIGHT}[name](ps)
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if name in EIGHT else None
    for step in range(8 if name in EIGHT else 5):
        assert opt(tuple(Tensor(grad_for(p.shape, step)) for p in ps)) is True
        if sched is not None:
            sched.step()
    return np.concatenate([p.asnumpy().ravel() for p in ps]), opt


@pytest.mark.parametrize("name", MINDSPORE)
def test_matches_mindspore(name):
    got, _ = run(name)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.float32(MINDSPORE[name]), rtol=0, atol=1e-6)


def test_radam_rectified_branch_is_reached():
    _, opt = run("RAdam_8")
    assert int(opt.step_t.asnumpy()) == 8


def _state(*prefixes):
    return [f"{prefix}.{name}" for prefix in prefixes for name in INITIAL]


@pytest.mark.parametrize("cls, states", [
    (optim.Adamax, _state("exp_avg", "exp_inf")),
    (optim.NAdam, _state("exp_avg", "exp_avg_sq")),
    (optim.RAdam, _state("exp_avg", "exp_avg_sq")),
    (optim.Adadelta, _state("accum", "accum_update")),
    (optim.Rprop, _state("prev", "step_size")),
    (optim.ASGD, _state("ax")),
])
def test_state_names_match_mindspore(cls, states):
    # MindSpore lists the optimized parameters first; minispore's optimizers (all of them)
    # list only their own state, in MindSpore's order.
    opt = cls(make_params())
    names = [p.name for p in opt.get_parameters()]
    if cls in (optim.Adamax, optim.NAdam, optim.RAdam):
        assert names == ["step_t"] + states
    elif cls is optim.Adadelta:
        assert names == states
    else:
        assert names == states + ["step_t"]


def test_nadam_mu_product_per_parameter():
    opt = optim.NAdam(make_params())
    assert [m.name for m in opt.mu_product] == [f"mu_product_{n}" for n in INITIAL]
    opt(tuple(Tensor(grad_for(p.shape, 0)) for p in opt.parameters))
    mu = 0.9 * (1 - 0.5 * 0.96 ** 0.004)
    np.testing.assert_allclose([float(m.asnumpy()) for m in opt.mu_product], [mu] * 3, rtol=1e-6)


SIGNATURES = {   # inspect.signature(...__init__) of MindSpore 2.10
    "Adamax": "(self, params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, *, "
              "maximize=False)",
    "NAdam": "(self, params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, "
             "momentum_decay=0.004)",
    "RAdam": "(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0)",
    "Adadelta": "(self, params, lr=1.0, rho=0.9, eps=1e-06, weight_decay=0.0, *, "
                "maximize=False)",
    "Rprop": "(self, params, lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-06, 50), *, "
             "maximize=False)",
    "ASGD": "(self, params, lr=0.01, lambd=0.0001, alpha=0.75, t0=1000000.0, weight_decay=0.0, "
            "maximize=False)",
}


@pytest.mark.parametrize("name", SIGNATURES)
def test_signature_matches_mindspore(name):
    assert str(inspect.signature(getattr(optim, name).__init__)) == SIGNATURES[name]
    assert name in optim.__all__


ALL = [optim.Adamax, optim.NAdam, optim.RAdam, optim.Adadelta, optim.Rprop, optim.ASGD]
FIRST_STATE = {optim.Adadelta: "accum", optim.Rprop: "prev", optim.ASGD: "ax"}


def test_asgd_eta_mu_per_parameter():
    opt = optim.ASGD(make_params(), lr=0.1, t0=0.0)
    assert [m.name for m in opt.mu] == [f"mu_{n}" for n in INITIAL]
    assert [m.name for m in opt.eta] == [f"eta_{n}" for n in INITIAL]
    for _ in range(3):
        opt(tuple(Tensor(grad_for(p.shape, 0)) for p in opt.parameters))
    np.testing.assert_allclose(float(opt.mu[0].asnumpy()), 1 / 3, rtol=1e-6)
    np.testing.assert_allclose(float(opt.eta[2].asnumpy()), 0.1 / (1 + 1e-5 * 3) ** 0.75,
                               rtol=1e-6)


@pytest.mark.parametrize("cls", ALL)
def test_groups_and_add_param_group(cls):
    ps = make_params()
    opt = cls(groups(ps), lr=0.01)
    assert [lr.name for lr in opt.lrs] == ["learning_rate_group_0", "learning_rate_group_1"]
    np.testing.assert_allclose([float(lr.asnumpy()) for lr in opt.lrs], [0.05, 0.01])
    if cls is not optim.Rprop:
        assert opt.param_groups[1]["weight_decay"] == 0.0
    ps2 = make_params()
    opt2 = cls(ps2[:1], lr=0.01)
    opt2.add_param_group({"params": ps2[1:], "lr": 0.1})
    assert [p.name for p in opt2.parameters] == list(INITIAL)
    state = FIRST_STATE.get(cls, "exp_avg")
    assert [p.name for p in getattr(opt2, state)] == _state(state)
    opt2(tuple(Tensor(grad_for(p.shape, 0)) for p in ps2))
    assert all(not np.array_equal(p.asnumpy(), INITIAL[p.name]) for p in ps2)


@pytest.mark.parametrize("cls", ALL)
def test_number_lr_in_group_is_honoured(cls):
    a, b = make_params(), make_params()
    opt_a, opt_b = cls(a, lr=0.1), cls(b, lr=0.01)
    opt_b.param_groups[0]["lr"] = 0.1
    for opt, ps in ((opt_a, a), (opt_b, b)):
        opt(tuple(Tensor(grad_for(p.shape, 0)) for p in ps))
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())


@pytest.mark.parametrize("call, error, match", [
    (lambda ps: optim.Adamax(ps, lr=0.0), ValueError, "'Adamax'.*'lr' must be > 0"),
    (lambda ps: optim.Adamax(ps, eps=0.0), ValueError, "'Adamax'.*'eps' must be > 0"),
    (lambda ps: optim.Adamax(ps, betas=(1.0, 0.9)), ValueError, r"'Adamax'.*'betas\[0\]'"),
    (lambda ps: optim.Adamax(ps, weight_decay=-1), ValueError, "'Adamax'.*'weight_decay'"),
    (lambda ps: optim.Adamax(ps, maximize=1), TypeError, "'Adamax'.*'maximize'"),
    (lambda ps: optim.NAdam(ps, lr=-1.0), ValueError, "'NAdam'.*'lr'"),
    (lambda ps: optim.NAdam(ps, momentum_decay=-0.1), ValueError, "'NAdam'.*'momentum_decay'"),
    (lambda ps: optim.NAdam(ps, betas=(0.9, -0.1)), ValueError, r"'NAdam'.*'betas\[1\]'"),
    (lambda ps: optim.NAdam(ps, betas=0.9), TypeError, "'NAdam'.*'betas'"),
    (lambda ps: optim.RAdam(ps, eps=-1e-8), ValueError, "'RAdam'.*'eps'"),
    (lambda ps: optim.RAdam(ps, lr="0.1"), TypeError, "'RAdam'.*'lr'"),
    (lambda ps: optim.RAdam(ps, betas=(0.9, 0.99, 0.9)), TypeError, "'RAdam'.*'betas'"),
    (lambda ps: optim.RAdam([{"params": ps, "betas": (0.9, 1.5)}]), ValueError,
     r"'RAdam'.*'betas\[1\]'"),
    (lambda ps: optim.RAdam([]), ValueError, "'RAdam'.*empty"),
    (lambda ps: optim.Adadelta(ps, rho=1.5), ValueError, "'Adadelta'.*'rho'"),
    (lambda ps: optim.Adadelta(ps, lr=0), ValueError, "'Adadelta'.*'lr' must be > 0"),
    (lambda ps: optim.Adadelta(ps, eps=0.0), ValueError, "'Adadelta'.*'eps' must be > 0"),
    (lambda ps: optim.Adadelta(ps, weight_decay=-0.1), ValueError, "'Adadelta'.*'weight_decay'"),
    (lambda ps: optim.Rprop(ps, etas=(1.0, 1.2)), ValueError, r"'Rprop'.*'etas\[0\]'"),
    (lambda ps: optim.Rprop(ps, etas=(0.5, 1.0)), ValueError, r"'Rprop'.*'etas\[1\]'"),
    (lambda ps: optim.Rprop(ps, lr=0.0), ValueError, "'Rprop'.*'lr'"),
    (lambda ps: optim.Rprop(ps, step_sizes=1e-6), TypeError, "'Rprop'.*'step_sizes'"),
    (lambda ps: optim.ASGD(ps, lambd=1), TypeError, "'ASGD'.*'lambd'"),
    (lambda ps: optim.ASGD(ps, t0=1000), TypeError, "'ASGD'.*'t0'"),
    (lambda ps: optim.ASGD(ps, lr=-0.1), ValueError, "'ASGD'.*'lr'"),
    (lambda ps: optim.ASGD(ps, weight_decay=-0.1), ValueError, "'ASGD'.*'weight_decay'"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call(make_params())
