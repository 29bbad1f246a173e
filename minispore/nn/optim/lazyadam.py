"""LazyAdam and AdamOffload: Adam's update under MindSpore's names for its sparse-row and
host-offloaded variants (on the host, with dense gradients, both compute Adam's step)."""
from .adam import Adam

__all__ = ["AdamOffload", "LazyAdam"]


class LazyAdam(Adam):
    """Adam whose moments, for a sparse gradient, are updated only on the rows it touches;
    for the dense gradients of minispore every row is touched, so the step is Adam's. See
    `Adam` for the arguments; state `beta1_power`, `beta2_power`, `moment1.<name>`,
    `moment2.<name>`."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale, use_lazy=True)


class AdamOffload(Adam):
    """Adam with the optimizer state held in host memory (as all minispore state is); the
    step is Adam's. See `Adam` for the arguments."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale, use_offload=True)
