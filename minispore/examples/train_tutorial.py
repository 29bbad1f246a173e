"""The autodiff tutorial's network trained for real: z = x @ w + b with BCE-with-logits, on a
logistic-regression task with 3 outputs, by `value_and_grad` over `trainable_params()`.

Prints the loss as it falls, the final accuracy, and a float64 check of the gradients against
central finite differences.

Run: python -m minispore.examples.train_tutorial [--steps 300]
"""
import argparse
import time

import numpy as np

import minispore as mindspore
from minispore import Parameter, Tensor, nn, ops
from minispore.testing import check_grads


class Network(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = w
        self.b = b

    def construct(self, x):
        z = ops.matmul(x, self.w) + self.b
        return z


W_TRUE = np.random.default_rng(0).standard_normal((5, 3))  # the hidden rule


def make_data(n, seed):
    """Inputs x (n, 5) and 0/1 labels y (n, 3) from the hidden linear rule, with label noise."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 5)).astype(np.float32)
    logits = x @ W_TRUE + 0.5
    y = (rng.random((n, 3)) < 1 / (1 + np.exp(-3 * logits))).astype(np.float32)
    return Tensor(x), Tensor(y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--lr", type=float, default=0.5)
    args = parser.parse_args(argv)

    mindspore.set_seed(0)
    x_train, y_train = make_data(512, seed=1)
    x_test, y_test = make_data(256, seed=2)
    w = Parameter(ops.randn(5, 3) * 0.1, name="w")
    b = Parameter(ops.zeros(3), name="b")
    model = Network(w, b)
    loss_fn = nn.BCEWithLogitsLoss()

    def forward_fn(x, y):
        z = model(x)
        loss = loss_fn(z, y)
        return loss

    grad_fn = mindspore.value_and_grad(forward_fn, None, weights=model.trainable_params())

    start = time.perf_counter()
    first = None
    for step in range(1, args.steps + 1):
        loss, grads = grad_fn(x_train, y_train)
        for param, g in zip(model.trainable_params(), grads):
            ops.assign(param, param - args.lr * g)
        first = float(loss) if first is None else first
        if step == 1 or step % 50 == 0:
            print(f"step {step:4d}  loss {float(loss):.6f}")
    elapsed = time.perf_counter() - start

    pred = (model(x_test).asnumpy() > 0).astype(np.float32)
    accuracy = float((pred == y_test.asnumpy()).mean())
    final = float(forward_fn(x_train, y_train))
    print(f"loss {first:.4f} -> {final:.4f} in {args.steps} steps ({elapsed:.2f} s); "
          f"held-out accuracy {accuracy:.1%}")

    # Gradients of the trained model against float64 central differences, order 1 and 2.
    x64 = Tensor(x_train.asnumpy()[:16].astype(np.float64))
    y64 = Tensor(y_train.asnumpy()[:16].astype(np.float64))

    def loss64(wv, bv):
        z = ops.matmul(x64, wv) + bv
        return ops.binary_cross_entropy_with_logits(z, y64)

    w64 = Tensor(w.asnumpy().astype(np.float64))
    b64 = Tensor(b.asnumpy().astype(np.float64))
    check_grads(loss64, [w64, b64], order=2)
    print("gradient check against central differences (float64, orders 1 and 2): passed")
    if final >= first:
        raise SystemExit("training did not lower the loss")


if __name__ == "__main__":
    main()
