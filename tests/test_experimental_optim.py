"""experimental.optim: torch-style optimizers against their written-out
rules in float64 and against MindSpore 2.10 (CPU) numbers; lr_scheduler sequences against
MindSpore 2.10; state names, groups, in-place updates and validation."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn
from minispore.experimental import optim
from minispore.experimental.optim import lr_scheduler

STEPS = 5
INITIAL = {"dense.weight": np.array([[0.5, -1.2, 0.3], [2.0, -0.7, 1.1]], np.float32),
           "bn.gamma": np.array([0.5, -0.1, 0.05], np.float32),
           "bias": np.array([-0.4, 0.9], np.float32)}


def make_params():
    return [Parameter(Tensor(v.copy()), name=n) for n, v in INITIAL.items()]


def grad_for(shape, step):
    rng = np.random.RandomState(100 + 7 * step + int(np.prod(shape)))
    scale = [1.0, 2.0, 0.5, 0.25, 1.5, 0.1][step % 6]
    return (rng.randn(*shape) * scale).astype(np.float32)


def train(opt, steps=STEPS, scheduler=None):
    lrs = []
    for step in range(steps):
        assert opt(tuple(Tensor(grad_for(p.shape, step)) for p in opt.parameters)) is True
        if scheduler is not None:
            scheduler.step()
            lrs.append([float(x.asnumpy()) for x in scheduler.get_last_lr()])
    return lrs


def groups_of(ps):
    return [{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.2}, {"params": ps[1:]}]


# ---- the rules, written out in float64 (g already negated for maximize) --------------------

def sgd_rule(s, w, g, t, lr, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0):
    g = g + weight_decay * w
    if momentum:
        s["b"] = g.copy() if t == 1 else momentum * s["b"] + (1 - dampening) * g
        g = g + momentum * s["b"] if nesterov else s["b"]
    w -= lr * g


def adam_rule(s, w, g, t, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False):
    # MindSpore's Adam: eps is added to sqrt(v) before the bias correction is applied
    b1, b2 = betas
    g = g + weight_decay * w
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
    s["vmax"] = np.maximum(s.get("vmax", 0.0), s["v"])
    v = s["vmax"] if amsgrad else s["v"]
    w -= lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * s["m"] / (np.sqrt(v) + eps)


def adamw_rule(s, w, g, t, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False):
    b1, b2 = betas
    w *= 1 - lr * weight_decay
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
    s["vmax"] = np.maximum(s.get("vmax", 0.0), s["v"])
    v = s["vmax"] if amsgrad else s["v"]
    w -= lr / (1 - b1 ** t) * s["m"] / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)


def rmsprop_rule(s, w, g, t, lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False):
    g = g + weight_decay * w
    s["ms"] = alpha * s.get("ms", 0.0) + (1 - alpha) * g * g
    s["mg"] = alpha * s.get("mg", 0.0) + (1 - alpha) * g
    avg = np.sqrt(s["ms"] - s["mg"] ** 2 if centered else s["ms"]) + eps
    if momentum:
        s["b"] = momentum * s.get("b", 0.0) + g / avg
        w -= lr * s["b"]
    else:
        w -= lr * g / avg


def adagrad_rule(s, w, g, t, lr, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
                 eps=1e-10):
    g = g + weight_decay * w
    s["sum"] = s.get("sum", initial_accumulator_value) + g * g
    w -= lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s["sum"]) + eps)


CONFIGS = {
    "SGD": (lambda ps, **k: optim.SGD(ps, lr=k.pop("lr", 0.01), **k), sgd_rule, {}),
    "SGD_mom": (lambda ps, **k: optim.SGD(ps, lr=k.pop("lr", 0.01), momentum=0.9, dampening=0.1,
                                          **k), sgd_rule, {"momentum": 0.9, "dampening": 0.1}),
    "SGD_nest": (lambda ps, **k: optim.SGD(ps, lr=k.pop("lr", 0.01), momentum=0.9,
                                           nesterov=True, **k),
                 sgd_rule, {"momentum": 0.9, "nesterov": True}),
    "Adam": (lambda ps, **k: optim.Adam(ps, **k), adam_rule, {}),
    "Adam_b": (lambda ps, **k: optim.Adam(ps, betas=(0.8, 0.7), eps=1e-3, **k), adam_rule,
               {"betas": (0.8, 0.7), "eps": 1e-3}),
    "Adam_ams": (lambda ps, **k: optim.Adam(ps, amsgrad=True, betas=(0.9, 0.6), **k), adam_rule,
                 {"amsgrad": True, "betas": (0.9, 0.6)}),
    "AdamW": (lambda ps, **k: optim.AdamW(ps, **k), adamw_rule, {}),
    "AdamW_ams": (lambda ps, **k: optim.AdamW(ps, amsgrad=True, betas=(0.9, 0.6), **k),
                  adamw_rule, {"amsgrad": True, "betas": (0.9, 0.6)}),
    "RMSprop": (lambda ps, **k: optim.RMSprop(ps, **k), rmsprop_rule, {}),
    "RMSprop_cm": (lambda ps, **k: optim.RMSprop(ps, centered=True, momentum=0.5, **k),
                   rmsprop_rule, {"centered": True, "momentum": 0.5}),
    "Adagrad": (lambda ps, **k: optim.Adagrad(ps, lr_decay=0.1, initial_accumulator_value=0.2,
                                              **k),
                adagrad_rule, {"lr_decay": 0.1, "initial_accumulator_value": 0.2}),
}
DEFAULT_LR = {"SGD": 0.01, "SGD_mom": 0.01, "SGD_nest": 0.01, "RMSprop": 1e-2,
              "RMSprop_cm": 1e-2, "Adagrad": 1e-2}
DEFAULT_WD = {"AdamW": 1e-2, "AdamW_ams": 1e-2}


def reference(rule, hyper, lrs, wds, maximize=False):
    weights = [v.astype(np.float64) for v in INITIAL.values()]
    states = [{} for _ in weights]
    for step in range(STEPS):
        for i, w in enumerate(weights):
            g = grad_for(w.shape, step).astype(np.float64)
            rule(states[i], w, -g if maximize else g, step + 1, lrs[i], weight_decay=wds[i],
                 **hyper)
    return dict(zip(INITIAL, weights))


@pytest.mark.parametrize("scenario", ["plain", "weight_decay_maximize", "groups"])
@pytest.mark.parametrize("config", CONFIGS)
def test_update_rule_matches_closed_form(config, scenario):
    make, rule, hyper = CONFIGS[config]
    ps = make_params()
    lr = DEFAULT_LR.get(config, 1e-3)
    wd = DEFAULT_WD.get(config, 0.0)
    if scenario == "plain":
        opt, lrs, wds, maximize = make(ps), [lr] * 3, [wd] * 3, False
    elif scenario == "weight_decay_maximize":
        opt = make(ps, weight_decay=0.1, maximize=True)
        lrs, wds, maximize = [lr] * 3, [0.1] * 3, True
    else:
        opt, lrs, wds, maximize = make(groups_of(ps)), [0.05, lr, lr], [0.2, wd, wd], False
    train(opt)
    expected = reference(rule, hyper, lrs, wds, maximize)
    for p in ps:
        np.testing.assert_allclose(p.asnumpy(), expected[p.name], rtol=1e-4, atol=1e-5,
                                   err_msg=p.name)


# Final [dense.weight, bn.gamma, bias] after `train` with weight_decay=0.1, maximize=True,
# from MindSpore 2.10 (CPU).
MINDSPORE_WEIGHT_DECAY_MAXIMIZE = {
    "SGD": [0.5120201, -1.155043, 0.3196795, 1.99051, -0.699981, 1.117261, 0.489966, -0.1190723,
            0.1039947, -0.4017047, 0.9375479],
    "SGD_mom": [0.5692772, -1.125316, 0.3367818, 1.968661, -0.7387441, 1.139769, 0.4482653,
                -0.1639021, 0.1723265, -0.3672438, 1.055793],
    "SGD_nest": [0.5723633, -1.076927, 0.3546458, 1.957381, -0.7340224, 1.15983, 0.4437315,
                 -0.1817401, 0.2244278, -0.3761193, 1.089346],
    "Adam": [0.5024049, -1.198826, 0.303593, 1.99986, -0.7026175, 1.100452, 0.4975649,
             -0.1036485, 0.05366051, -0.3984649, 0.9031273],
    "Adam_b": [0.5023363, -1.198674, 0.3034571, 1.999881, -0.7025135, 1.100578, 0.4976447,
               -0.1036569, 0.05361329, -0.3988024, 0.9030191],
    "AdamW": [0.5022967, -1.19849, 0.3035952, 1.999424, -0.7025253, 1.100186, 0.4975042,
              -0.1036232, 0.05364162, -0.3984121, 0.9027678],
    "AdamW_ams": [0.5020137, -1.19866, 0.3033547, 1.999474, -0.702347, 1.099847, 0.4974917,
                  -0.1031076, 0.05323561, -0.3984253, 0.9023711],
    "RMSprop": [0.5560505, -1.090918, 0.5307008, 2.035369, -0.7386189, 1.102801, 0.4242869,
                -0.3000013, 0.3069566, -0.4015826, 1.060079],
    "RMSprop_cm": [0.6304376, -1.066382, 0.6582853, 2.064689, -0.8407551, 1.086595, 0.3273968,
                   -0.4913751, 0.4873432, -0.3605239, 1.231534],
    "Adagrad": [0.5064969, -1.191917, 0.3162667, 2.0012, -0.7055108, 1.100465, 0.4921902,
                -0.114053, 0.06955612, -0.3981057, 0.9149526],
}


@pytest.mark.parametrize("config", MINDSPORE_WEIGHT_DECAY_MAXIMIZE)
def test_matches_mindspore(config):
    ps = make_params()
    train(CONFIGS[config][0](ps, weight_decay=0.1, maximize=True))
    got = np.concatenate([p.asnumpy().ravel() for p in ps])
    np.testing.assert_allclose(got, MINDSPORE_WEIGHT_DECAY_MAXIMIZE[config], rtol=2e-5,
                               atol=2e-6)


def test_adam_amsgrad_takes_effect():
    # MindSpore 2.10 ignores amsgrad in experimental.optim.Adam; here it applies.
    plain, ams = make_params(), make_params()
    train(optim.Adam(plain, betas=(0.9, 0.6)))
    train(optim.Adam(ams, betas=(0.9, 0.6), amsgrad=True))
    assert not np.allclose(plain[0].asnumpy(), ams[0].asnumpy(), rtol=1e-5)


def _state(*prefixes):
    return [f"{prefix}.{name}" for prefix in prefixes for name in INITIAL]


STATE_NAMES = {
    "SGD": _state("accum", "stat"),
    "Adam": _state("exp_avg", "exp_avg_sq", "max_exp_avg_sq") + ["state_step"],
    "AdamW": _state("exp_avg", "exp_avg_sq", "max_exp_avg_sq") + ["state_step"],
    "RMSprop": _state("mean_grad", "mean_square", "moment"),
    "Adagrad": _state("accum") + ["step_t"],
}


@pytest.mark.parametrize("config", STATE_NAMES)
def test_state_names_match_mindspore(config):
    opt = CONFIGS[config][0](make_params())
    assert [p.name for p in opt.get_parameters()] == STATE_NAMES[config]


def test_in_place_update_and_versions():
    ps = make_params()
    opt = optim.AdamW(ps, lr=0.1)
    arrays, versions = [p._data for p in ps], [p._version for p in ps]
    train(opt, steps=1)
    assert all(p._data is a for p, a in zip(ps, arrays))
    assert all(p._version > v for p, v in zip(ps, versions))
    assert int(opt.state_step.asnumpy()) == 1


def test_param_groups_defaults_and_learning_rate_parameters():
    ps = make_params()
    opt = optim.Adam(groups_of(ps), lr=0.01, betas=(0.8, 0.9))
    assert [len(g["params"]) for g in opt.param_groups] == [1, 2]
    assert opt.param_groups[1]["betas"] == (0.8, 0.9)
    assert [lr.name for lr in opt.lrs] == ["learning_rate_group_0", "learning_rate_group_1"]
    assert opt.param_groups[0]["lr"] is opt.lrs[0]
    np.testing.assert_allclose([float(lr.asnumpy()) for lr in opt.lrs], [0.05, 0.01])
    assert opt.defaults["lr"] == 0.01


def test_setting_a_group_lr_to_a_number_is_honoured():
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = optim.SGD([w], lr=0.1)
    opt.param_groups[0]["lr"] = 0.5
    opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [-0.5])


def test_add_param_group_extends_parameters_and_state():
    ps = make_params()
    opt = optim.Adam(ps[:1], lr=0.01)
    opt.add_param_group({"params": ps[1:], "lr": 0.1})
    assert [p.name for p in opt.parameters] == list(INITIAL)
    assert [p.name for p in opt.exp_avg] == _state("exp_avg")
    train(opt)
    assert not np.array_equal(ps[2].asnumpy(), INITIAL["bias"])


@pytest.mark.parametrize("call, error, match", [
    (lambda ps: optim.Adam(ps, lr=-0.1), ValueError, "'Adam'.*learning rate"),
    (lambda ps: optim.AdamW(ps, betas=(1.0, 0.9)), ValueError, "'AdamW'.*beta .*index 0"),
    (lambda ps: optim.Adam(ps, eps=-1.0), ValueError, "'Adam'.*epsilon"),
    (lambda ps: optim.AdamW(ps, weight_decay=-0.1), ValueError, "'AdamW'.*weight_decay"),
    (lambda ps: optim.SGD(ps, lr=0.1, momentum=-1), ValueError, "'SGD'.*'momentum'"),
    (lambda ps: optim.SGD(ps, lr=0.1, nesterov=True), ValueError, "'SGD'.*'nesterov'"),
    (lambda ps: optim.SGD(ps, lr="0.1"), TypeError, "'SGD'.*'lr'"),
    (lambda ps: optim.RMSprop(ps, lr=0.0), ValueError, "'RMSprop'.*'lr' must be > 0"),
    (lambda ps: optim.Adagrad(ps, eps=0.0), ValueError, "'Adagrad'.*'eps' must be > 0"),
    (lambda ps: optim.Adam(set(ps)), TypeError, "'Adam'.*set"),
    (lambda ps: optim.Adam([ps[0], "w"]), TypeError, "'Adam'.*only optimize Parameters"),
    (lambda ps: optim.Adam([{"params": ps[:2]}, {"params": ps[1:]}]), ValueError,
     "'Adam'.*more than one parameter group"),
    (lambda ps: optim.Adam([]), ValueError, "'Adam'.*empty"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call(make_params())


@pytest.mark.parametrize("bad, error, match", [
    (lambda gs: gs[:2], ValueError, "got 2 gradients for 3 parameters"),
    (lambda gs: gs[:2] + (Tensor(np.ones(5, np.float32)),), ValueError,
     r"gradient 2 has shape \(5,\) but parameter 'bias' has shape \(2,\)"),
    (lambda gs: gs[:2] + (None,), TypeError, "gradient 2 .*must be a Tensor"),
])
def test_bad_gradients_change_nothing(bad, error, match):
    ps = make_params()
    opt = optim.Adam(ps, lr=0.1)
    train(opt, steps=1)
    before = [p.asnumpy().copy() for p in list(opt.get_parameters()) + ps]
    with pytest.raises(error, match=f"For 'Adam'.*{match}"):
        opt(bad(tuple(Tensor(grad_for(p.shape, 1)) for p in ps)))
    after = [p.asnumpy() for p in list(opt.get_parameters()) + ps]
    assert all(np.array_equal(a, b) for a, b in zip(after, before))


# ---- lr_scheduler: the lrs after each of 8 steps, 2 groups (lr 0.05 and 0.1), from MindSpore

SCHEDULERS = {
    "StepLR": (lambda o: lr_scheduler.StepLR(o, 2, gamma=0.5),
               [[0.05, 0.1], [0.025, 0.05], [0.025, 0.05], [0.0125, 0.025], [0.0125, 0.025],
                [0.00625, 0.0125], [0.00625, 0.0125], [0.003125, 0.00625]]),
    "MultiStepLR": (lambda o: lr_scheduler.MultiStepLR(o, [1, 3, 3], gamma=0.5),
                    [[0.025, 0.05], [0.025, 0.05]] + [[0.00625, 0.0125]] * 6),
    "ExponentialLR": (lambda o: lr_scheduler.ExponentialLR(o, 0.8),
                      [[0.05 * 0.8 ** k, 0.1 * 0.8 ** k] for k in range(1, 9)]),
    "CosineAnnealingLR": (lambda o: lr_scheduler.CosineAnnealingLR(o, 3, eta_min=0.001),
                          [[0.03775, 0.07525], [0.01325, 0.02575], [0.001, 0.001],
                           [0.01325, 0.02575], [0.03775, 0.07525], [0.04999999, 0.09999997],
                           [0.03774999, 0.07524996], [0.01324999, 0.02574998]]),
    "LinearLR": (lambda o: lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=3),
                 [[0.025, 0.05], [0.0375, 0.075]] + [[0.05, 0.1]] * 6),
    "LambdaLR": (lambda o: lr_scheduler.LambdaLR(o, lambda e: 1.0 / (e + 1)),
                 [[0.05 / (k + 1), 0.1 / (k + 1)] for k in range(1, 9)]),
    "ConstantLR": (lambda o: lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2),
                   [[0.025, 0.05]] + [[0.05, 0.1]] * 7),
    "PolynomialLR": (lambda o: lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0),
                     [[0.028125, 0.05625], [0.0125, 0.025], [0.003125, 0.00625]]
                     + [[0.0, 0.0]] * 5),
    "MultiplicativeLR": (lambda o: lr_scheduler.MultiplicativeLR(o, lambda e: 0.9),
                         [[0.05 * 0.9 ** k, 0.1 * 0.9 ** k] for k in range(1, 9)]),
    "SequentialLR": (lambda o: lr_scheduler.SequentialLR(
        o, [lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=2),
            lr_scheduler.ExponentialLR(o, 0.5)], [2]),
        [[0.0375, 0.075], [0.05, 0.1], [0.025, 0.05], [0.0125, 0.025], [0.00625, 0.0125],
         [0.003125, 0.00625], [0.0015625, 0.003125], [0.00078125, 0.0015625]]),
}


@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_sequences_match_mindspore(name):
    make, expected = SCHEDULERS[name]
    opt = optim.SGD(groups_of(make_params()), lr=0.1)
    lrs = train(opt, steps=8, scheduler=make(opt))
    np.testing.assert_allclose(lrs, expected, rtol=1e-5, atol=1e-9)
    # the optimizer's learning-rate Parameters are what the scheduler writes
    np.testing.assert_allclose([float(lr.asnumpy()) for lr in opt.lrs], expected[-1], rtol=1e-5)


def test_scheduler_drives_the_update():
    w = Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = optim.SGD([w], lr=1.0)
    scheduler = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
        scheduler.step()
    np.testing.assert_allclose(w.asnumpy(), [-1.75])


def test_closed_form_step_with_epoch():
    opt = optim.SGD(make_params(), lr=0.1)
    scheduler = lr_scheduler.MultiStepLR(opt, [2, 4], gamma=0.5)
    scheduler.step(5)
    assert float(scheduler.get_last_lr()[0].asnumpy()) == pytest.approx(0.025)
    scheduler = lr_scheduler.CosineAnnealingLR(optim.SGD(make_params(), lr=0.1), T_max=4)
    scheduler.step(2)
    assert float(scheduler.get_last_lr()[0].asnumpy()) == pytest.approx(0.05)


def test_scheduler_errors():
    with pytest.raises(TypeError, match="'StepLR'.*Optimizer"):
        lr_scheduler.StepLR(nn.SGD(make_params()), 2)
    opt = optim.SGD(make_params(), lr=0.1)
    with pytest.raises(TypeError, match="'StepLR'.*'gamma' must be a float"):
        lr_scheduler.StepLR(opt, 2, gamma=1)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.ExponentialLR(optim.SGD(make_params(), lr=0.1), 0.5, last_epoch=3)
    with pytest.raises(ValueError, match="one milestone fewer"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.ExponentialLR(opt, 0.5)], [1])


def test_training_lowers_the_loss():
    rng = np.random.RandomState(0)
    x = rng.randn(32, 2).astype(np.float32)
    y = Tensor(x @ np.array([2.0, -1.0], np.float32) + np.float32(0.5))
    x = Tensor(x)
    weight = Parameter(Tensor(np.zeros((1, 2), np.float32)), name="weight")
    bias = Parameter(Tensor(np.zeros(1, np.float32)), name="bias")
    opt = optim.AdamW([weight, bias], lr=0.1)
    scheduler = lr_scheduler.CosineAnnealingLR(opt, T_max=40)

    def forward(data, label):
        return (((data * weight).sum(axis=1) + bias - label) ** 2).mean()

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range(40):
        loss, grads = grad_fn(x, y)
        opt(grads)
        scheduler.step()
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < 0.1 * losses[0]
