"""Make mindspore_optimizers_extra.npz: final parameters and optimizer state of MindSpore 2.10's
FTRL, ProximalAdagrad, Rprop, ASGD and LARS after a few steps, for
tests/nn/test_optimizers_extra.py. Run with real MindSpore (CPU):

    /tmp/msvenv/bin/python tests/nn/data/make_mindspore_optimizers_extra.py

LARSUpdate has no CPU kernel in 2.10, so for LARS the primitive is replaced by the formula of
MindSpore's Ascend kernel (lars_v2_update) written with MindSpore ops; everything else (which
parameters get LARS, weight decay, loss scale, the wrapped optimizer) is MindSpore's own code,
run op by op.
"""
import os

import numpy as np

STEPS = 6
INITIAL = {
    "dense.weight": np.array([[0.5, -1.2, 0.3], [2.0, -0.7, 1.1]], np.float32),
    "bn.gamma": np.array([0.5, -0.1, 0.05], np.float32),
    "bias": np.array([-0.4, 0.9], np.float32),
}


def make_params(Parameter, Tensor):
    return [Parameter(Tensor(v.copy()), name=n) for n, v in INITIAL.items()]


def grad_for(shape, step):
    rng = np.random.RandomState(100 + 7 * step + int(np.prod(shape)))
    scale = [1.0, 2.0, 0.5, 0.25, 1.5, 0.1][step % 6]
    return (rng.randn(*shape) * scale).astype(np.float32)


def groups_of(ps, lr=True):
    first = {"params": [ps[0]], "weight_decay": 0.2}
    if lr:
        first["lr"] = 0.05
    return [first, {"params": ps[1:]}, {"order_params": [ps[2], ps[0], ps[1]]}]


def cases(nn, lars):
    """name -> constructor of the optimizer from the parameters, for the framework `nn`; `lars`
    wraps an optimizer in LARS."""
    return {
        # l1 > 0 shows the CPU kernel's shrinkage bug (see the test)
        "FTRL/l1": lambda ps: nn.FTRL(ps, learning_rate=0.1, l1=0.01, l2=0.02),
        "FTRL/plain": lambda ps: nn.FTRL(ps, learning_rate=0.1, l2=0.02),
        "FTRL/power": lambda ps: nn.FTRL(ps, initial_accum=0.5, learning_rate=0.2,
                                         lr_power=-0.3, l2=0.05),
        "FTRL/power0": lambda ps: nn.FTRL(ps, learning_rate=0.05, lr_power=0.0, l2=0.1),
        "FTRL/weight_decay": lambda ps: nn.FTRL(ps, learning_rate=0.1, weight_decay=0.1,
                                                loss_scale=2.0),
        "FTRL/groups": lambda ps: nn.FTRL(groups_of(ps, lr=False), learning_rate=0.1,
                                          weight_decay=0.05),
        "ProximalAdagrad/plain": lambda ps: nn.ProximalAdagrad(ps, learning_rate=0.1, l1=0.05,
                                                               l2=0.1),
        "ProximalAdagrad/l2": lambda ps: nn.ProximalAdagrad(ps, accum=0.3, learning_rate=0.1,
                                                            l2=0.5),
        "ProximalAdagrad/weight_decay": lambda ps: nn.ProximalAdagrad(
            ps, learning_rate=0.1, l1=0.01, weight_decay=0.1, loss_scale=4.0),
        "ProximalAdagrad/groups": lambda ps: nn.ProximalAdagrad(
            groups_of(ps), learning_rate=0.02, l1=0.01, weight_decay=0.05),
        "ProximalAdagrad/schedule": lambda ps: nn.ProximalAdagrad(
            ps, learning_rate=nn.ExponentialDecayLR(0.02, 0.5, 2), l1=0.01),
        "Rprop/plain": lambda ps: nn.Rprop(ps, learning_rate=0.01),
        "Rprop/clip": lambda ps: nn.Rprop(ps, learning_rate=0.05, etas=(0.3, 1.5),
                                          step_sizes=(0.02, 0.08)),
        "Rprop/weight_decay": lambda ps: nn.Rprop(ps, learning_rate=0.01, weight_decay=0.1),
        "Rprop/groups": lambda ps: nn.Rprop(groups_of(ps), learning_rate=0.02,
                                            weight_decay=0.05),
        "Rprop/schedule": lambda ps: nn.Rprop(ps,
                                              learning_rate=nn.ExponentialDecayLR(0.02, 0.5, 2)),
        "ASGD/plain": lambda ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.01, alpha=0.75, t0=2.0),
        "ASGD/default": lambda ps: nn.ASGD(ps),
        "ASGD/weight_decay": lambda ps: nn.ASGD(ps, learning_rate=0.05, t0=3.0,
                                                weight_decay=0.1),
        "ASGD/groups": lambda ps: nn.ASGD(groups_of(ps), learning_rate=0.02, lambd=0.1, t0=1.0,
                                          weight_decay=0.05),
        "ASGD/schedule": lambda ps: nn.ASGD(ps, learning_rate=nn.ExponentialDecayLR(0.02, 0.5, 2),
                                            lambd=0.5, t0=4.0),
        "LARS/plain": lambda ps: lars(nn.Momentum(ps, 0.1, 0.9), coefficient=0.02),
        "LARS/weight_decay": lambda ps: lars(nn.Momentum(ps, 0.1, 0.9, weight_decay=0.1,
                                                         loss_scale=2.0), epsilon=1e-3),
        "LARS/clip": lambda ps: lars(nn.Momentum(ps, 0.1, 0.9, weight_decay=0.1), use_clip=True,
                                     coefficient=0.01),
        "LARS/groups": lambda ps: lars(nn.Momentum(groups_of(ps, lr=False), 0.1, 0.9,
                                                   weight_decay=0.05), coefficient=0.05),
        "LARS/filter": lambda ps: lars(nn.SGD(ps, 0.1, weight_decay=0.1), coefficient=0.02,
                                       lars_filter=lambda p: "gamma" not in p.name),
    }


def main():
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn, ops

    def lars_update(epsilon, coefficient, use_clip):
        # The sums of squares are taken here again: the ones LARS passes in (from SquareSumAll)
        # came out wrong in 2.10 from the 6th op-by-op step on (1.80 for a sum of 7.46), while
        # SquareSumAll alone on the same arrays is right.
        def update(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate):
            w_norm = ops.sqrt(ops.sum(weight * weight))
            g_norm = ops.sqrt(ops.sum(gradient * gradient))
            coeff = coefficient * w_norm / (g_norm + weight_decay * w_norm + epsilon)
            if use_clip:
                coeff = ops.clamp(coeff / learning_rate, 0.0, 1.0)
            return coeff * (gradient + weight_decay * weight)
        return update

    class _PyNativeLARS(nn.LARS):
        """LARS run op by op: 2.10 fails to compile its jit-decorated construct ("The
        pointer[cnode_abs] is null")."""

        def construct(self, gradients):
            return nn.LARS.construct.__wrapped__(self, gradients)

    def lars(inner, **kwargs):
        opt = _PyNativeLARS(inner, **kwargs)
        opt.lars = lars_update(kwargs.get("epsilon", 1e-5), kwargs.get("coefficient", 0.001),
                               kwargs.get("use_clip", False))
        return opt

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = {}
    for case, make in cases(nn, lars).items():
        ps = make_params(Parameter, Tensor)
        opt = make(ps)
        for step in range(STEPS):
            opt(tuple(Tensor(grad_for(p.shape, step)) for p in opt.parameters))
        network = {id(p) for p in ps}
        for p in opt.get_parameters():
            if id(p) in network or p.name in ("fake_lr", "fake_param"):
                continue
            out[f"{case}|{p.name}"] = p.asnumpy()
        for p in ps:
            out[f"{case}|{p.name}"] = p.asnumpy()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "mindspore_optimizers_extra.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
