"""nn optimizers: each update rule against its written-out formula in
float64 over several steps, and against numbers from MindSpore 2.10 (CPU); parameter groups,
`order_params`, weight decay and its beta/gamma filter, loss scale, list and schedule learning
rates, state names, in-place updates and input validation."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn

STEPS = 5
W0 = np.array([[0.5, -1.2, 0.3], [2.0, -0.7, 1.1]], np.float32)
GAMMA0 = np.array([0.5, -0.1, 0.05], np.float32)
BIAS0 = np.array([-0.4, 0.9], np.float32)
INITIAL = {"dense.weight": W0, "bn.gamma": GAMMA0, "bias": BIAS0}


def make_params():
    return [Parameter(Tensor(v.copy()), name=n) for n, v in INITIAL.items()]


def grad_for(shape, step):
    """Deterministic gradients whose scale changes from step to step (also downwards, so
    AMSGrad's running maximum matters)."""
    rng = np.random.RandomState(100 + 7 * step + int(np.prod(shape)))
    scale = [1.0, 2.0, 0.5, 0.25, 1.5, 0.1][step % 6]
    return (rng.randn(*shape) * scale).astype(np.float32)


def train(opt, steps=STEPS):
    for step in range(steps):
        opt(tuple(Tensor(grad_for(p.shape, step)) for p in opt.parameters))


def values(params):
    return {p.name: p.asnumpy() for p in params}


# ---- the rules, written out in float64 -----------------------------------------------------
# Each takes the per-parameter state dict `s`, the weight `w` (updated in place), the processed
# gradient `g`, the learning rate and the step number t (1 on the first update).

def sgd_rule(s, w, g, lr, t, momentum=0.0, dampening=0.0, nesterov=False):
    if momentum == 0.0:
        w -= lr * g
        return
    s["v"] = g.copy() if t == 1 else momentum * s["v"] + (1 - dampening) * g
    w -= lr * (g + momentum * s["v"] if nesterov else s["v"])


def momentum_rule(s, w, g, lr, t, momentum, nesterov=False):
    s["v"] = momentum * s.get("v", 0.0) + g
    w -= lr * (g + momentum * s["v"] if nesterov else s["v"])


def adam_rule(s, w, g, lr, t, beta1=0.9, beta2=0.999, eps=1e-8, nesterov=False, amsgrad=False):
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    s["vhat"] = np.maximum(s.get("vhat", 0.0), s["v"])
    lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    numerator = beta1 * s["m"] + (1 - beta1) * g if nesterov else s["m"]
    w -= lr_t * numerator / (np.sqrt(s["vhat"] if amsgrad else s["v"]) + eps)


def adam_weight_decay_rule(s, w, g, lr, t, wd, beta1=0.9, beta2=0.999, eps=1e-6):
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    w -= lr * (s["m"] / (np.sqrt(s["v"]) + eps) + wd * w)


def adagrad_rule(s, w, g, lr, t, accum=0.1):
    s["a"] = s.get("a", accum) + g * g
    w -= lr * g / np.sqrt(s["a"])


def rmsprop_rule(s, w, g, lr, t, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False):
    s["ms"] = decay * s.get("ms", 1.0) + (1 - decay) * g * g
    s["mg"] = decay * s.get("mg", 0.0) + (1 - decay) * g
    denominator = s["ms"] - s["mg"] ** 2 if centered else s["ms"]
    s["mom"] = momentum * s.get("mom", 0.0) + lr * g / np.sqrt(denominator + epsilon)
    w -= s["mom"]


def adamax_rule(s, w, g, lr, t, beta1=0.9, beta2=0.999, eps=1e-8):
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = np.maximum(beta2 * s.get("v", 0.0), np.abs(g))
    w -= lr / (1 - beta1 ** t) * s["m"] / (s["v"] + eps)


def adadelta_rule(s, w, g, lr, t, rho=0.9, epsilon=1e-6):
    s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g * g
    update = np.sqrt(s.get("u", 0.0) + epsilon) * g / np.sqrt(s["a"] + epsilon)
    s["u"] = rho * s.get("u", 0.0) + (1 - rho) * update * update
    w -= lr * update


def lamb_rule(s, w, g, lr, t, wd, beta1=0.9, beta2=0.999, eps=1e-6):
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    r = (s["m"] / (1 - beta1 ** t)) / (np.sqrt(s["v"] / (1 - beta2 ** t)) + eps)
    update = r + wd * w
    w_norm, u_norm = np.linalg.norm(w), np.linalg.norm(update)
    ratio = np.clip(w_norm / u_norm, 0.0, 10.0) if w_norm > 0 and u_norm > 0 else 1.0
    w -= lr * ratio * update


def reference(rule, lr, wd=(0.0, 0.0, 0.0), loss_scale=1.0, decoupled=False, steps=STEPS,
              **hyper):
    """Final weights (by name) after `steps` updates; `lr(step, i)` gives the rate of parameter
    i, `wd[i]` its weight decay (0 where it does not decay). Coupled decay is
    `g / loss_scale + wd * w`; decoupled rules get `wd` themselves."""
    weights = [v.astype(np.float64) for v in INITIAL.values()]
    states = [{} for _ in weights]
    for step in range(steps):
        for i, w in enumerate(weights):
            g = grad_for(w.shape, step).astype(np.float64)
            if decoupled:
                rule(states[i], w, g, lr(step, i), step + 1, wd=wd[i], **hyper)
            else:
                rule(states[i], w, g / loss_scale + wd[i] * w, lr(step, i), step + 1, **hyper)
    return dict(zip(INITIAL, weights))


# name: (constructor taking (params, **kwargs), rule, rule hyper-parameters, decoupled)
CONFIGS = {
    "SGD": (lambda ps, **k: nn.SGD(ps, **k), sgd_rule, {}, False),
    "SGD_mom": (lambda ps, **k: nn.SGD(ps, momentum=0.9, dampening=0.2, **k), sgd_rule,
                {"momentum": 0.9, "dampening": 0.2}, False),
    "SGD_nest": (lambda ps, **k: nn.SGD(ps, momentum=0.8, nesterov=True, **k), sgd_rule,
                 {"momentum": 0.8, "nesterov": True}, False),
    "Momentum": (lambda ps, **k: nn.Momentum(ps, k.pop("learning_rate"), 0.9, **k),
                 momentum_rule, {"momentum": 0.9}, False),
    "Adam": (lambda ps, **k: nn.Adam(ps, **k), adam_rule, {}, False),
    "Adam_nest": (lambda ps, **k: nn.Adam(ps, use_nesterov=True, beta1=0.8, beta2=0.9, **k),
                  adam_rule, {"nesterov": True, "beta1": 0.8, "beta2": 0.9}, False),
    "Adam_ams": (lambda ps, **k: nn.Adam(ps, use_amsgrad=True, beta2=0.6, **k), adam_rule,
                 {"amsgrad": True, "beta2": 0.6}, False),
    "AdamWeightDecay": (lambda ps, **k: nn.AdamWeightDecay(ps, **k), adam_weight_decay_rule, {},
                        True),
    "Adagrad": (lambda ps, **k: nn.Adagrad(ps, **k), adagrad_rule, {}, False),
    "RMSProp": (lambda ps, **k: nn.RMSProp(ps, momentum=0.5, **k), rmsprop_rule,
                {"momentum": 0.5}, False),
    "RMSProp_c": (lambda ps, **k: nn.RMSProp(ps, centered=True, epsilon=1e-4, **k), rmsprop_rule,
                  {"centered": True, "epsilon": 1e-4}, False),
    "AdaMax": (lambda ps, **k: nn.AdaMax(ps, beta2=0.7, **k), adamax_rule, {"beta2": 0.7},
               False),
    "Adadelta": (lambda ps, **k: nn.Adadelta(ps, rho=0.8, epsilon=1e-4, **k), adadelta_rule,
                 {"rho": 0.8, "epsilon": 1e-4}, False),
    "Lamb": (lambda ps, **k: nn.Lamb(ps, **k), lamb_rule, {}, True),
}
NO_LOSS_SCALE = {"AdamWeightDecay", "Lamb"}


def groups_of(ps):
    """Group 0: the weight with its own lr and weight decay; group 1: the rest with the
    defaults; `order_params` puts the bias first."""
    return [{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.2}, {"params": ps[1:]},
            {"order_params": [ps[2], ps[0], ps[1]]}]


LIST_LR = [0.01, 0.02, 0.005, 0.03, 0.01]
# name: (optimizer kwargs, expected lr(step, i), expected wd per parameter, loss scale)
SCENARIOS = {
    "plain": (lambda ps: {"learning_rate": 0.01}, lambda k, i: 0.01, (0.0, 0.0, 0.0), 1.0),
    # bn.gamma is skipped by the default weight decay
    "weight_decay": (lambda ps: {"learning_rate": 0.01, "weight_decay": 0.1}, lambda k, i: 0.01,
                     (0.1, 0.0, 0.1), 1.0),
    "loss_scale": (lambda ps: {"learning_rate": 0.01, "weight_decay": 0.1, "loss_scale": 4.0},
                   lambda k, i: 0.01, (0.1, 0.0, 0.1), 4.0),
    # group weight decay applies to every parameter of the group, bn.gamma included
    "groups": (lambda ps: {"learning_rate": 0.02, "weight_decay": 0.05},
               lambda k, i: 0.05 if i == 0 else 0.02, (0.2, 0.05, 0.05), 1.0),
    "list_lr": (lambda ps: {"learning_rate": LIST_LR}, lambda k, i: LIST_LR[k],
                (0.0, 0.0, 0.0), 1.0),
    "schedule": (lambda ps: {"learning_rate": nn.ExponentialDecayLR(0.02, 0.5, 2)},
                 lambda k, i: 0.02 * 0.5 ** (k / 2), (0.0, 0.0, 0.0), 1.0),
}


@pytest.mark.parametrize("config, scenario", [
    (c, s) for c in CONFIGS for s in SCENARIOS if not (s == "loss_scale" and c in NO_LOSS_SCALE)])
def test_update_rule_matches_closed_form(config, scenario):
    make, rule, hyper, decoupled = CONFIGS[config]
    kwargs, lr, wd, loss_scale = SCENARIOS[scenario]
    ps = make_params()
    opt_params = groups_of(ps) if scenario == "groups" else ps
    opt = make(opt_params, **kwargs(ps))
    train(opt)
    expected = reference(rule, lr, wd, loss_scale, decoupled, **hyper)
    # float32 updates against a float64 reference drift by a few ulps per step
    for name, got in values(ps).items():
        np.testing.assert_allclose(got, expected[name], rtol=1e-4, atol=1e-5, err_msg=name)
    assert int(opt.global_step.asnumpy()[0]) == STEPS


# Final [dense.weight (6), bn.gamma (3), bias (2)] after 5 steps of `train`, from MindSpore 2.10
# (CPU), with learning_rate=0.01, weight_decay=0.1 (bn.gamma not decayed) ...
MINDSPORE_WEIGHT_DECAY = {
    "SGD": [0.4829899, -1.232981, 0.2773266, 1.98953, -0.693033, 1.071761, 0.5075868, -0.080365,
            -0.004344307, -0.3943033, 0.85347],
    "SGD_mom": [0.417488, -1.235294, 0.2585992, 1.980507, -0.6447011, 1.042988, 0.5463962,
                -0.04078193, -0.06126199, -0.4278343, 0.7373205],
    "SGD_nest": [0.4310126, -1.275175, 0.2442502, 1.977928, -0.6570961, 1.017972, 0.5370641,
                 -0.03158134, -0.09910432, -0.4027452, 0.724034],
    "Momentum": [0.4195321, -1.25545, 0.2531829, 1.984469, -0.6436163, 1.023744, 0.5452054,
                 -0.02864261, -0.0851483, -0.4181393, 0.7071371],
    "Adam": [0.4732106, -1.206133, 0.2612864, 1.989866, -0.6689892, 1.090084, 0.5224641,
             -0.06325906, 0.01332553, -0.4123659, 0.8669601],
    "Adam_nest": [0.4719249, -1.209712, 0.2491038, 1.982917, -0.6680413, 1.091856, 0.5239501,
                  -0.05317234, -0.0005965803, -0.4085183, 0.8588729],
    "Adam_ams": [0.4763915, -1.204803, 0.263961, 1.990051, -0.6708833, 1.094078, 0.5225899,
                 -0.06841604, 0.01738619, -0.4124231, 0.8711384],
    "AdamWeightDecay": [0.3901714, -1.261928, 0.1297722, 1.983453, -0.5764413, 1.038973,
                        0.594382, 0.06512919, -0.1159087, -0.4436237, 0.7555113],
    "Adagrad": [0.4923495, -1.208525, 0.2770801, 1.991425, -0.692424, 1.095494, 0.5064035,
                -0.08327781, 0.02651789, -0.3982033, 0.8832042],
    "RMSProp": [0.4702611, -1.237442, 0.2667956, 1.986835, -0.6785643, 1.062245, 0.5188384,
                -0.06258386, -0.01577162, -0.3958823, 0.8389133],
    "RMSProp_c": [0.4859457, -1.228989, 0.2747444, 1.989528, -0.6939179, 1.076191, 0.5068198,
                  -0.08064661, 0.005287129, -0.3928904, 0.8694086],
    "AdaMax": [0.4683132, -1.205335, 0.2594117, 1.987185, -0.6628521, 1.090575, 0.5245614,
               -0.06489053, 0.01863246, -0.4116726, 0.868838],
    "Adadelta": [0.4998662, -1.200502, 0.2992093, 1.999665, -0.6998667, 1.09975, 0.5000756,
                 -0.09943503, 0.04920088, -0.3997551, 0.8995927],
}
# ... and with `groups_of` (learning_rate=0.02, weight_decay=0.05).
MINDSPORE_GROUPS = {
    "SGD": [0.406354, -1.334387, 0.1806449, 1.898927, -0.6508201, 0.9344383, 0.5125831,
            -0.06035842, -0.05873778, -0.3906025, 0.8114311],
    "SGD_mom": [0.0726902, -1.311155, 0.08028634, 1.793431, -0.3934036, 0.7573881, 0.5868259,
                0.01929963, -0.1726543, -0.4601934, 0.5848216],
    "Momentum": [0.08164212, -1.400196, 0.05190787, 1.795434, -0.3844709, 0.6546038, 0.5834762,
                 0.04363022, -0.2203053, -0.4415239, 0.5260761],
    "Adam": [0.3613122, -1.214765, 0.1038072, 1.921243, -0.5371476, 1.039036, 0.5428731,
             -0.0263501, -0.02337972, -0.4262164, 0.8347772],
    "AdamWeightDecay": [-0.04955221, -1.481096, -0.5434835, 1.871543, -0.07956068, 0.7687005,
                        0.6858109, 0.2300758, -0.2814148, -0.4892433, 0.6155137],
    "Adagrad": [0.4579253, -1.234386, 0.1826202, 1.942846, -0.6550768, 1.068239, 0.5115596,
                -0.06630546, 0.002989648, -0.3973134, 0.8670279],
    "RMSProp_c": [0.4217156, -1.318942, 0.1675135, 1.904892, -0.6551006, 0.9599102, 0.5110476,
                  -0.06092666, -0.03947642, -0.3877005, 0.8414804],
    "AdaMax": [0.3349706, -1.212915, 0.09343444, 1.910061, -0.5045584, 1.041274, 0.5469972,
               -0.02956252, -0.01277317, -0.4252034, 0.8386386],
    "Adadelta": [0.4991539, -1.202143, 0.2958915, 1.997727, -0.6990525, 1.098468, 0.5001048,
                 -0.09886149, 0.04840012, -0.3995487, 0.8992127],
}


def flat(params):
    return np.concatenate([p.asnumpy().ravel() for p in params])


@pytest.mark.parametrize("config", MINDSPORE_WEIGHT_DECAY)
def test_matches_mindspore_with_weight_decay(config):
    ps = make_params()
    train(CONFIGS[config][0](ps, learning_rate=0.01, weight_decay=0.1))
    np.testing.assert_allclose(flat(ps), MINDSPORE_WEIGHT_DECAY[config], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("config", MINDSPORE_GROUPS)
def test_matches_mindspore_with_groups(config):
    ps = make_params()
    train(CONFIGS[config][0](groups_of(ps), learning_rate=0.02, weight_decay=0.05))
    np.testing.assert_allclose(flat(ps), MINDSPORE_GROUPS[config], rtol=2e-5, atol=2e-6)


# ---- state ---------------------------------------------------------------------------------

# The optimizer's own parameters, named as MindSpore 2.10 names them (MindSpore also lists the
# optimized parameters themselves; see test_network_parameters_are_not_the_optimizers_own).
def _state(*prefixes):
    return [f"{prefix}.{name}" for prefix in prefixes for name in INITIAL]


STATE_NAMES = {
    "SGD": ["global_step", "learning_rate", "momentum"] + _state("accum", "stat"),
    "Momentum": ["global_step", "learning_rate", "momentum"] + _state("moments"),
    "Adam": ["global_step", "learning_rate", "beta1_power", "beta2_power"]
            + _state("moment1", "moment2"),
    "Adam_ams": ["global_step", "learning_rate", "beta1_power", "beta2_power"]
                + _state("moment1", "moment2", "vhat"),
    "AdamWeightDecay": ["global_step", "learning_rate"] + _state("adam_m", "adam_v"),
    "Adagrad": ["global_step", "learning_rate"] + _state("accum"),
    "RMSProp": ["global_step", "learning_rate"] + _state("mean_square", "moment"),
    "RMSProp_c": ["global_step", "learning_rate"] + _state("mean_grad", "mean_square", "moment"),
    "AdaMax": ["global_step", "learning_rate", "beta1_power"] + _state("moment1", "moment2"),
    "Adadelta": ["global_step", "learning_rate"] + _state("accum", "accum_update"),
    "Lamb": ["global_step", "learning_rate"] + _state("lamb_m", "lamb_v"),
}


@pytest.mark.parametrize("config", STATE_NAMES)
def test_state_parameter_names(config):
    opt = CONFIGS[config][0](make_params(), learning_rate=0.01)
    assert [p.name for p in opt.get_parameters()] == STATE_NAMES[config]
    assert list(opt.parameters_dict()) == STATE_NAMES[config]


def test_state_initial_values():
    ps = make_params()
    assert np.all(nn.Adagrad(ps).accum[0].asnumpy() == np.float32(0.1))
    rms = nn.RMSProp(ps, centered=True)
    assert np.all(rms.ms[1].asnumpy() == 1) and np.all(rms.mg[1].asnumpy() == 0)
    sgd = nn.SGD(ps, momentum=0.9)
    assert np.all(sgd.stat[2].asnumpy() == 1) and np.all(sgd.accum[2].asnumpy() == 0)
    adam = nn.Adam(ps)
    assert adam.beta1_power.shape == () and adam.global_step.shape == (1,)
    assert adam.global_step.dtype == ms.int32 and adam.moment1[0].shape == W0.shape


def test_group_learning_rates_are_state_named_by_group_index():
    ps = make_params()
    opt = nn.SGD(groups_of(ps), learning_rate=0.02)
    assert sorted(p.name for p in opt.get_parameters()) == sorted([
        "global_step", "learning_rate_group_0", "learning_rate", "momentum",
        "accum.bias", "accum.dense.weight", "accum.bn.gamma",
        "stat.bias", "stat.dense.weight", "stat.bn.gamma"])


def test_nested_optimizer_state_takes_the_attribute_prefix():
    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.opt = nn.Adam(make_params())

    names = [p.name for p in Step().get_parameters()]
    assert "opt.moment1.dense.weight" in names and "opt.global_step" in names


def test_network_parameters_are_not_the_optimizers_own():
    # MindSpore also registers the optimized parameters in the optimizer, so nesting an
    # optimizer renames the network's weights ('opt.weight'); here they keep their names.
    ps = make_params()

    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.opt = nn.SGD(ps)

    Step()
    assert [p.name for p in ps] == list(INITIAL)


def test_unnamed_parameters_keep_their_names():
    p = Parameter(Tensor(np.ones(2, np.float32)))
    name = p.name
    opt = nn.Momentum([p], 0.1, 0.9)
    assert p.name == name and opt.moments[0].name == f"moments.{name}"


# ---- in-place update -----------------------------------------------------------------------

@pytest.mark.parametrize("config", CONFIGS)
def test_updates_in_place_bumps_versions_and_returns_true(config):
    ps = make_params()
    opt = CONFIGS[config][0](ps, learning_rate=0.01)
    arrays = [p._data for p in ps]
    state = [p for p in opt.get_parameters()]
    state_arrays = [p._data for p in state]
    versions = [p._version for p in ps + state]
    result = opt(tuple(Tensor(grad_for(p.shape, 0)) for p in opt.parameters))
    assert result == (True,) * len(ps)
    assert all(p._data is a for p, a in zip(ps, arrays))
    assert all(p._data is a for p, a in zip(state, state_arrays))
    assert all(p._version > v for p, v in zip(ps, versions))
    assert any(not np.array_equal(p.asnumpy(), INITIAL[p.name]) for p in ps)


def test_in_place_write_invalidates_a_saved_value():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    opt = nn.SGD([w], 0.1)

    def forward():
        y = w * w
        opt((Tensor(np.ones(2, np.float32)),))   # rewrites w after `w * w` saved it
        return y.sum()

    with pytest.raises(RuntimeError):
        ms.grad(forward, None, [w])()


def test_gradients_are_not_modified():
    ps = make_params()
    opt = nn.Adam(ps, weight_decay=0.1, loss_scale=2.0)
    grads = tuple(Tensor(grad_for(p.shape, 0)) for p in ps)
    before = [g.asnumpy().copy() for g in grads]
    opt(grads)
    assert all(np.array_equal(g.asnumpy(), b) for g, b in zip(grads, before))


# ---- learning rates ------------------------------------------------------------------------

def test_float_learning_rate_is_a_parameter_read_every_step():
    w = Parameter(Tensor(np.array([1.0], np.float32)), name="w")
    opt = nn.SGD([w], 0.5)
    assert isinstance(opt.learning_rate, Parameter) and opt.learning_rate.name == "learning_rate"
    opt.learning_rate.set_data(Tensor(np.float32(0.25)))
    opt((Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.75])


def test_get_lr_for_list_schedule_and_groups():
    opt = nn.SGD(make_params(), [0.3, 0.2])
    assert float(opt.get_lr().asnumpy()) == pytest.approx(0.3)
    train(opt, steps=1)
    assert float(opt.get_lr().asnumpy()) == pytest.approx(0.2)
    opt = nn.SGD(make_params(), nn.WarmUpLR(0.1, 4))
    train(opt, steps=2)
    assert float(opt.get_lr().asnumpy()) == pytest.approx(0.05)
    ps = make_params()
    lrs = nn.SGD(groups_of(ps), learning_rate=0.02).get_lr()
    np.testing.assert_allclose([float(x.asnumpy()) for x in lrs], [0.02, 0.05, 0.02])


def test_running_past_the_end_of_a_list_rate_changes_nothing():
    ps = make_params()
    opt = nn.Momentum(ps, [0.1, 0.2], 0.9)
    train(opt, steps=2)
    before = {p.name: p.asnumpy().copy() for p in list(opt.get_parameters()) + ps}
    with pytest.raises(IndexError, match="Momentum.*learning_rate.*2 values"):
        train(opt, steps=1)
    for p in list(opt.get_parameters()) + ps:
        np.testing.assert_array_equal(p.asnumpy(), before[p.name], err_msg=p.name)


def test_tensor_learning_rates():
    w = Parameter(Tensor(np.array([1.0], np.float32)), name="w")
    opt = nn.SGD([w], Tensor(np.array([0.5, 0.25], np.float32)))
    for _ in range(2):
        opt((Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.25])
    opt = nn.SGD([w], Tensor(np.float32(0.5)))
    assert isinstance(opt.learning_rate, Parameter)


def test_group_list_rates_must_have_equal_length():
    ps = make_params()
    with pytest.raises(ValueError, match="same length"):
        nn.SGD([{"params": ps[:1], "lr": [0.1, 0.2]}, {"params": ps[1:], "lr": [0.1]}])


def test_get_lr_parameter():
    ps = make_params()
    opt = nn.SGD(groups_of(ps), learning_rate=0.02)
    assert opt.get_lr_parameter(ps[0]).name == "learning_rate_group_0"
    assert [p.name for p in opt.get_lr_parameter(ps[1:])] == ["learning_rate"] * 2
    with pytest.raises(ValueError, match="not optimized"):
        opt.get_lr_parameter(Parameter(Tensor(np.ones(1, np.float32)), name="other"))


# ---- weight decay, centralization, loss scale ----------------------------------------------

def test_default_weight_decay_skips_beta_and_gamma():
    ps = [Parameter(Tensor(np.array([1.0], np.float32)), name=n)
          for n in ("fc.weight", "bn.gamma", "ln.beta", "alphabeta", "bias")]
    nn.SGD(ps, 0.1, weight_decay=0.5)(tuple(Tensor(np.zeros(1, np.float32)) for _ in ps))
    # a plain substring test, as in MindSpore: 'alphabeta' does not decay either
    np.testing.assert_allclose([p.asnumpy()[0] for p in ps], [0.95, 1.0, 1.0, 1.0, 0.95])


def test_decay_weight_scale_grad_and_get_weight_decay():
    ps = make_params()
    opt = nn.SGD(ps, 0.1, weight_decay=0.5, loss_scale=2.0)
    grads = tuple(Tensor(np.ones(p.shape, np.float32)) for p in ps)
    assert opt.get_weight_decay() == pytest.approx(1.0)   # times the loss scale
    decayed = opt.decay_weight(grads)
    np.testing.assert_allclose(decayed[0].asnumpy(), 1 + W0)
    np.testing.assert_allclose(decayed[1].asnumpy(), np.ones(3))
    np.testing.assert_allclose(opt.scale_grad(grads)[2].asnumpy(), [0.5, 0.5])


def test_weight_decay_cell_is_evaluated_at_the_step():
    class StepDecay(nn.Cell):
        def construct(self, step):
            return Tensor(step.asnumpy().astype(np.float32) * 0.1)

    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.0, weight_decay=StepDecay())
    for _ in range(3):
        opt((Tensor(np.zeros(2, np.float32)),))
    # from MindSpore 2.10: decay 0, 0.1, 0.2 at steps 0, 1, 2
    np.testing.assert_allclose(w.asnumpy(), [0.9702, 1.9404], rtol=1e-6)


def test_gradient_centralization_in_a_group():
    w = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")
    b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")
    opt = nn.SGD([{"params": [w, b], "grad_centralization": True}], 1.0)
    g = np.array([[1.0, 2.0, 6.0], [0.0, 0.0, 3.0]], np.float32)
    opt((Tensor(g), Tensor(np.array([1.0, 2.0, 3.0], np.float32))))
    np.testing.assert_allclose(w.asnumpy(), -(g - g.mean(axis=1, keepdims=True)))
    np.testing.assert_allclose(b.asnumpy(), [-1.0, -2.0, -3.0])


def test_order_params_fixes_parameter_and_gradient_order():
    ps = make_params()
    opt = nn.SGD(groups_of(ps), learning_rate=0.02)
    assert [p.name for p in opt.parameters] == ["bias", "dense.weight", "bn.gamma"]
    assert opt.decay_flags == (False, True, False)


# ---- deliberate differences from MindSpore 2.10's CPU kernels ------------------------------

def test_momentum_use_nesterov_takes_effect():
    ps = make_params()
    train(nn.Momentum(ps, 0.01, 0.9, use_nesterov=True))
    expected = reference(momentum_rule, lambda k, i: 0.01, momentum=0.9, nesterov=True)
    for p in ps:
        np.testing.assert_allclose(p.asnumpy(), expected[p.name], rtol=2e-5, atol=2e-6)


def test_adagrad_update_slots_false_keeps_the_accumulator():
    ps = make_params()
    opt = nn.Adagrad(ps, accum=0.5, learning_rate=0.1, update_slots=False)
    train(opt, steps=2)
    assert np.all(opt.accum[0].asnumpy() == np.float32(0.5))
    g0, g1 = (grad_for(W0.shape, k).astype(np.float64) for k in range(2))
    np.testing.assert_allclose(ps[0].asnumpy(), W0 - 0.1 * (g0 + g1) / np.sqrt(0.5), rtol=1e-5)


def test_lamb_trust_ratio_is_one_for_zero_weights():
    w = Parameter(Tensor(np.zeros(3, np.float32)), name="w")
    nn.Lamb([w], 0.1)((Tensor(np.array([1.0, -2.0, 0.5], np.float32)),))
    # first step: m_hat = g, v_hat = g*g, so r = g / (|g| + eps) = sign(g) (nearly)
    np.testing.assert_allclose(w.asnumpy(), [-0.1, 0.1, -0.1], rtol=1e-5)


def test_lamb_trust_ratio_is_clipped_at_ten():
    w = Parameter(Tensor(np.full(4, 100.0, np.float32)), name="w")
    nn.Lamb([w], 0.01)((Tensor(np.full(4, 3.0, np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), 100.0 - 0.01 * 10.0, rtol=1e-6)


# ---- validation: right error, and a bad call changes nothing -------------------------------

def snapshot(opt, ps):
    return {id(p): p.asnumpy().copy() for p in list(opt.get_parameters()) + ps}


def assert_unchanged(opt, ps, before):
    for p in list(opt.get_parameters()) + ps:
        np.testing.assert_array_equal(p.asnumpy(), before[id(p)], err_msg=p.name)


@pytest.mark.parametrize("config", ["SGD_mom", "Adam_ams", "RMSProp_c", "AdamWeightDecay"])
@pytest.mark.parametrize("bad, error, match", [
    (lambda gs: gs[:2], ValueError, r"got 2 gradients for 3 parameters"),
    (lambda gs: gs[:2] + (Tensor(np.ones(3, np.float32)),), ValueError,
     r"gradient 2 has shape \(3,\) but parameter 'bias' has shape \(2,\)"),
    (lambda gs: gs[:2] + (np.ones(2, np.float32),), TypeError, r"gradient 2 .*must be a Tensor"),
    (lambda gs: list(gs[:2]) + [Tensor(np.ones((2, 1), np.float32))], ValueError, "shape"),
    (lambda gs: gs[0], TypeError, "tuple of Tensors"),
])
def test_bad_gradients_raise_and_change_nothing(config, bad, error, match):
    ps = make_params()
    opt = CONFIGS[config][0](ps, learning_rate=0.01)
    train(opt, steps=1)
    before = snapshot(opt, ps)
    grads = tuple(Tensor(grad_for(p.shape, 1)) for p in opt.parameters)
    name = type(opt).__name__
    with pytest.raises(error, match=f"For '{name}'.*{match}"):
        opt(bad(grads))
    assert_unchanged(opt, ps, before)


@pytest.mark.parametrize("make, error, match", [
    (lambda ps: nn.SGD(ps, -0.1), ValueError, r"'SGD'.*'learning_rate' must be >= 0"),
    (lambda ps: nn.SGD(ps, "0.1"), TypeError, r"'SGD'.*'learning_rate'"),
    (lambda ps: nn.SGD(ps, [0.1, -0.2]), ValueError, r"'SGD'.*'learning_rate'"),
    (lambda ps: nn.SGD(ps, Tensor(np.ones((2, 2), np.float32))), ValueError, r"0-d or 1-D"),
    (lambda ps: nn.SGD([1.0, 2.0]), TypeError, r"'SGD'.*'params'"),
    (lambda ps: nn.SGD([]), ValueError, r"'SGD'.*must not be empty"),
    (lambda ps: nn.SGD(None), ValueError, r"'SGD'.*None"),
    (lambda ps: nn.SGD(ps + ps[:1]), ValueError, r"'dense.weight' is given twice"),
    (lambda ps: nn.Adam(ps, weight_decay=-1.0), ValueError, r"'Adam'.*'weight_decay'"),
    (lambda ps: nn.Adam(ps, loss_scale=0.0), ValueError, r"'Adam'.*'loss_scale' must be > 0"),
    (lambda ps: nn.Adam(ps, beta1=1.0), ValueError, r"'Adam'.*'beta1' must be in \(0.0, 1.0\)"),
    (lambda ps: nn.Adam(ps, eps=0.0), ValueError, r"'Adam'.*'eps'"),
    (lambda ps: nn.Adam(ps, use_amsgrad=1), TypeError, r"'Adam'.*'use_amsgrad' must be a bool"),
    (lambda ps: nn.Adam(ps, use_lazy=True, use_offload=True), ValueError, "use_offload"),
    (lambda ps: nn.Momentum(ps, 0.1, 1), TypeError, r"'Momentum'.*'momentum' must be a float"),
    (lambda ps: nn.Momentum(ps, 0.1, -0.9), ValueError, r"'Momentum'.*'momentum'"),
    (lambda ps: nn.SGD(ps, nesterov=True), ValueError, r"'SGD'.*'nesterov'"),
    (lambda ps: nn.Adagrad(ps, accum=-0.1), ValueError, r"'Adagrad'.*'accum'"),
    (lambda ps: nn.RMSProp(ps, epsilon=0.0), ValueError, r"'RMSProp'.*'epsilon'"),
    (lambda ps: nn.Adadelta(ps, rho=1.5), ValueError, r"'Adadelta'.*'rho'"),
    (lambda ps: nn.AdaMax(ps, beta2=0.0), ValueError, r"'AdaMax'.*'beta2'"),
    (lambda ps: nn.Lamb(ps, 0.1, eps=-1.0), ValueError, r"'Lamb'.*'eps'"),
])
def test_bad_construction_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make(make_params())


@pytest.mark.parametrize("groups, error, match", [
    (lambda ps: [{"params": ps, "learning_rate": 0.1}], KeyError, r"'SGD'.*\['learning_rate'\]"),
    (lambda ps: [{"params": ps[:1]}, {"order_params": ps[:2]}], ValueError,
     r"'order_params'.*2 entries for 1 parameters"),
    (lambda ps: [{"params": ps[:2]}, {"order_params": [ps[1], ps[2]]}], ValueError,
     r"'order_params'.*\['bias'\]"),
    (lambda ps: [{"params": ps[:2]}, {"order_params": ps[:2], "lr": 0.1}], ValueError,
     r"only the key 'order_params'"),
    (lambda ps: [{"params": ps[:2]}, {"params": ps[1:]}], ValueError, "'bn.gamma' is given twice"),
    (lambda ps: [{"params": [ps[0], "w"]}], TypeError, r"group 0 must be Parameters"),
    (lambda ps: [{"params": ps, "grad_centralization": 1}], TypeError, "grad_centralization"),
    (lambda ps: [{"lr": 0.1}], KeyError, "no 'params'"),
    (lambda ps: [{"params": ps}, ps[0]], TypeError, r"'SGD'.*'params'.*\['Parameter', 'dict'\]"),
])
def test_bad_groups(groups, error, match):
    with pytest.raises(error, match=match):
        nn.SGD(groups(make_params()), 0.1)


# ---- end to end ----------------------------------------------------------------------------

class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.array([[0.5, -0.3]], np.float32)))
        self.bias = Parameter(Tensor(np.zeros(1, np.float32)))

    def construct(self, x):
        return (x * self.weight).sum(axis=1) + self.bias


@pytest.mark.parametrize("make", [
    lambda ps: nn.Momentum(ps, 0.05, 0.9), lambda ps: nn.Adam(ps, 0.05),
    lambda ps: nn.AdamWeightDecay(ps, 0.05, weight_decay=0.01), lambda ps: nn.RMSProp(ps, 0.1),
    lambda ps: nn.FTRL(ps, learning_rate=0.5), lambda ps: nn.ProximalAdagrad(ps, 0.1, 0.3),
    lambda ps: nn.Rprop(ps, 0.05), lambda ps: nn.ASGD(ps, 0.05),
    lambda ps: nn.LARS(nn.Momentum(ps, 0.5, 0.9), coefficient=0.1),
], ids=["Momentum", "Adam", "AdamWeightDecay", "RMSProp", "FTRL", "ProximalAdagrad", "Rprop",
        "ASGD", "LARS"])
def test_value_and_grad_with_optimizer_lowers_the_loss(make):
    rng = np.random.RandomState(0)
    x = Tensor(rng.randn(32, 2).astype(np.float32))
    y = Tensor((x.asnumpy() @ np.array([2.0, -1.0], np.float32) + 0.5).astype(np.float32))
    net = Linear()
    opt = make(net.trainable_params())

    def forward(data, label):
        return ((net(data) - label) ** 2).mean()

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range(40):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < 0.2 * losses[0]
