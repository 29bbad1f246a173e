"""MindSpore's functional-autodiff tutorial, run unchanged under `import minispore as mindspore`,
with every printed gradient checked against NumPy."""
import numpy as np

import minispore as mindspore
from minispore import Parameter, Tensor, nn, ops

rng = np.random.default_rng(7)
W0 = rng.standard_normal((5, 3)).astype(np.float32)
B0 = rng.standard_normal(3).astype(np.float32)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def bce_grads(x, y, w, b):
    """d(mean BCE-with-logits)/dw, /db for z = x @ w + b."""
    z = x @ w + b
    dz = (sigmoid(z) - y) / z.size
    return np.outer(x, dz), dz


def setup():
    x = ops.ones(5, mindspore.float32)  # input tensor
    y = ops.zeros(3, mindspore.float32)  # expected output
    w = Parameter(Tensor(W0, mindspore.float32), name='w')  # weight
    b = Parameter(Tensor(B0, mindspore.float32), name='b')  # bias
    return x, y, w, b


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss


def function_with_logits(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, z


def function_stop_gradient(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, ops.stop_gradient(z)


def test_loss_value():
    x, y, w, b = setup()
    loss = function(x, y, w, b)
    z = np.ones(5) @ W0 + B0
    expected = np.mean(np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))))
    assert loss.shape == () and loss.dtype == mindspore.float32
    np.testing.assert_allclose(loss.asnumpy(), expected, rtol=1e-6)


def test_grad_of_positions_2_and_3():
    x, y, w, b = setup()
    grad_fn = mindspore.grad(function, (2, 3))
    grads = grad_fn(x, y, w, b)
    gw, gb = bce_grads(np.ones(5), np.zeros(3), W0.astype(np.float64), B0.astype(np.float64))
    assert isinstance(grads, tuple) and len(grads) == 2
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)


def test_several_outputs_add_the_logits_gradient():
    x, y, w, b = setup()
    grads = mindspore.grad(function_with_logits, (2, 3))(x, y, w, b)
    gw, gb = bce_grads(np.ones(5), np.zeros(3), W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(grads[0].asnumpy(), gw + 1.0, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb + 1.0, rtol=1e-5)


def test_stop_gradient_removes_the_logits_gradient():
    x, y, w, b = setup()
    grads = mindspore.grad(function_stop_gradient, (2, 3))(x, y, w, b)
    gw, gb = bce_grads(np.ones(5), np.zeros(3), W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)


def test_has_aux():
    x, y, w, b = setup()
    grad_fn = mindspore.grad(function_with_logits, (2, 3), has_aux=True)
    grads, (z,) = grad_fn(x, y, w, b)
    gw, _ = bce_grads(np.ones(5), np.zeros(3), W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(z.asnumpy(), np.ones(5, np.float32) @ W0 + B0, rtol=1e-6)


def test_network_with_value_and_grad_over_trainable_params():
    x, y, w, b = setup()

    # Define model
    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w
            self.b = b

        def construct(self, x):
            z = ops.matmul(x, self.w) + self.b
            return z

    model = Network()
    loss_fn = nn.BCEWithLogitsLoss()

    # Define forward function
    def forward_fn(x, y):
        z = model(x)
        loss = loss_fn(z, y)
        return loss

    grad_fn = mindspore.value_and_grad(forward_fn, None, weights=model.trainable_params())
    loss, grads = grad_fn(x, y)
    gw, gb = bce_grads(np.ones(5), np.zeros(3), W0.astype(np.float64), B0.astype(np.float64))
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)
    assert [p.name for p in model.trainable_params()] == ["w", "b"]
    assert [n for n, _ in model.parameters_and_names()] == ["w", "b"]

    # Training with the same gradient function lowers the loss.
    first = float(loss)
    for _ in range(50):
        loss, grads = grad_fn(x, y)
        for p, g in zip(model.trainable_params(), grads):
            ops.assign(p, p - 0.5 * g)
    assert float(loss) < first / 2
