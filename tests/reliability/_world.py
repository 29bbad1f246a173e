"""A small training world (network, optimizers, training cell) and a snapshot of every piece of
state an error could leave changed: parameters, buffers, optimizer state, versions, context,
the tape, random streams."""
import numpy as np

import minispore as ms
from minispore import Tensor, context, nn
from minispore._autodiff import tape as tape_mod
from minispore.common import seed as seed_mod


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(ops_relu(self.bn(self.fc1(x))))


def ops_relu(x):
    return ms.ops.relu(x)


class World:
    """Everything a bad call might touch, built the same way each time (seeded)."""

    def __init__(self, seed=7):
        ms.set_seed(seed)
        self.net = Net()
        self.net.set_train()
        self.loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        self.loss_net = nn.WithLossCell(self.net, self.loss_fn)
        self.opt = nn.Momentum(self.net.trainable_params(), 0.1, 0.9)
        self.train = nn.TrainOneStepCell(self.loss_net, self.opt)
        self.adam = nn.Adam(self.net.trainable_params(), 1e-3)
        rng = np.random.default_rng(seed)
        self.x = Tensor(rng.standard_normal((6, 4)).astype(np.float32))
        self.y = Tensor(rng.integers(0, 3, 6).astype(np.int32))
        # one step first, so the optimizer state is not all zeros
        self.train(self.x, self.y)

    def cells(self):
        return (self.net, self.opt, self.adam, self.train)

    def step(self):
        """One training step and one Adam step; returns what they produced, as arrays."""
        loss = self.train(self.x, self.y)
        grads = ms.grad(self.loss_net, None, self.adam.parameters)(self.x, self.y)
        self.adam(grads)
        return [loss.asnumpy().copy()] + [p.asnumpy().copy() for p in self.net.get_parameters()]


def _entries(cell):
    seen = set()
    for name, p in cell.parameters_and_names():
        if id(p) not in seen:
            seen.add(id(p))
            yield f"param:{name}", p
    for name, t in cell.named_buffers():
        if id(t) not in seen:
            seen.add(id(t))
            yield f"buffer:{name}", t


def snapshot(world):
    """Everything observable about the world and the process-wide state, by value."""
    state = {}
    for k, cell in enumerate(world.cells()):
        for name, t in _entries(cell):
            a = t._data
            state[f"{k}:{name}"] = (a.copy(), a.dtype, a.shape, bool(a.flags.writeable),
                                    t._version)
    state["context"] = dict(context._context)
    state["tape"] = (tape_mod._state.tape, tape_mod._active)
    state["seed"] = (seed_mod._seed, repr(seed_mod._global.bit_generator.state))
    state["training"] = tuple(c.training for _, c in world.net.cells_and_names())
    return state


def diff(before, after):
    """Names of the entries that differ (values compared bitwise, NaN equal to NaN)."""
    changed = []
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key), after.get(key)
        if b is None or a is None:
            changed.append(key)
        elif isinstance(b, tuple) and b and isinstance(b[0], np.ndarray):
            if not (b[1:] == a[1:] and np.array_equal(b[0], a[0], equal_nan=True)):
                changed.append(key)
        elif b != a:
            changed.append(key)
    return changed
