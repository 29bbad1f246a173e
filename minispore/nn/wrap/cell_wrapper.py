"""Cells that wrap a network for training and evaluation: WithLossCell, WithEvalCell,
WithGradCell, ForwardValueAndGrad, TrainOneStepCell (with DistributedGradReducer in data-parallel
mode)."""
import numpy as np

from ..._autodiff.tape import const

from ..._autodiff.engine import value_and_grad
from ..._validator import check_bool, check_callable, check_number, check_type, type_name
from ...common import dtype as mstype
from ...common.parameter import ParameterTuple
from ...common.tensor import Tensor
from ...communication import _backend
from ...communication.management import GlobalComm, get_group_size
from ...context import ParallelMode, get_auto_parallel_context, parallel_key_is_set
from ...ops.composite import GradOperation
from ...ops.operations import math_ops as M
from ..cell import Cell
from ..layer.basic import Identity
from .grad_reducer import DistributedGradReducer, broadcast_parameters

__all__ = ["ForwardValueAndGrad", "TrainOneStepCell", "WithEvalCell", "WithGradCell",
           "WithLossCell"]


class WithLossCell(Cell):
    """`construct(data, label) = loss_fn(backbone(data), label)`.

    Args:
        backbone (Cell): the network.
        loss_fn (Cell): the loss, called as `loss_fn(output, label)`.
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = check_type(backbone, Cell, "backbone", "WithLossCell")
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


class WithEvalCell(Cell):
    """Evaluation wrapper: `construct(data, label)` returns `(loss, outputs, label)`.

    Args:
        network (Cell): the network.
        loss_fn (Cell): the loss, called as `loss_fn(outputs, label)`.
        add_cast_fp32 (bool): cast the outputs (and a floating-point label) to float32 before
            the loss. Default: False.
    """

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self.add_cast_fp32 = check_bool(add_cast_fp32, "add_cast_fp32", "WithEvalCell")
        self._network = check_type(network, Cell, "network", "WithEvalCell")
        self._loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            if isinstance(label, Tensor) and label._data.dtype.kind == "f":
                label = M.cast(label, mstype.float32)
            outputs = M.cast(outputs, mstype.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class WithGradCell(Cell):
    """Returns the gradients of the loss w.r.t. the network's trainable parameters (a tuple in
    their order).

    Args:
        network (Cell): the network, or the network with its loss when `loss_fn` is None.
        loss_fn (Cell): the loss; the cell then differentiates `loss_fn(network(data), label)`.
        sens (Tensor): the output sensitivity (the loss's shape); None means ones.
    """

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network = check_type(network, Cell, "network", "WithGradCell")
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()
        self._grad_fn = GradOperation(get_by_list=True, sens_param=sens is not None)(
            self.network_with_loss, self.weights)

    def construct(self, *inputs):
        if self.sens is None:
            return self._grad_fn(*inputs)
        return self._grad_fn(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """Returns `(network(*inputs), gradients)`, the gradients selected as in `GradOperation`.

    Args:
        network (Union[Cell, function]): the function to differentiate.
        weights (ParameterTuple): the parameters, with `get_by_list=True`. Default: None.
        get_all (bool): gradients w.r.t. every input. Default: False.
        get_by_list (bool): gradients w.r.t. `weights`. Default: False.
        sens_param (bool): the last input is the output sensitivity. Default: False.
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        owner = "ForwardValueAndGrad"
        check_callable(network, "network", owner)
        if get_by_list:
            check_type(weights, (ParameterTuple, tuple, list), "weights", owner,
                       "a sequence of Parameters when get_by_list is True")
        self.network = network
        self.weights = weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self._grad = GradOperation(get_all=get_all, get_by_list=get_by_list,
                                   sens_param=sens_param)

    def construct(self, *inputs):
        # The value comes from the same forward run as the gradients (MindSpore runs it twice).
        values = []

        def recorded(*args):
            out = self.network(*args)
            values.append(out)
            return out

        fn = self._grad(recorded, self.weights) if self.get_by_list else self._grad(recorded)
        grads = fn(*inputs)
        return values[0], grads


def _check_optimizer(owner, optimizer):
    """`optimizer`, after checking that it is an optimizer: a Cell with `parameters` (the
    experimental optimizers and LARS are not `nn.Optimizer`s)."""
    if not hasattr(optimizer, "parameters"):
        raise TypeError(f"For '{owner}', the 'optimizer' must be an optimizer Cell (with "
                        f"'parameters'), but got {type_name(optimizer)}")
    return check_type(optimizer, Cell, "optimizer", owner, "an optimizer Cell")


class TrainOneStepCell(Cell):
    """One training step per call: forward, gradients w.r.t. `optimizer.parameters`, update.

    Returns the loss computed *before* the update (with `return_grad=True`, the pair
    `(loss, {parameter name: gradient})`).

    Args:
        network (Cell): the network with its loss; a single output.
        optimizer (Cell): the optimizer; its `parameters` are differentiated.
        sens (numbers.Number): the output sensitivity, filled to the loss's shape: the gradients
            are those of `sens * loss`. Default: None (1.0).
        return_grad (bool): also return the gradients by parameter name. Default: False.

    Raises:
        TypeError: `sens` not a number, `optimizer` not an optimizer.
        ValueError: `sens` is 0.
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        self.network = check_type(network, Cell, "network", owner)
        self.network.set_grad()
        self.optimizer = _check_optimizer(owner, optimizer)
        self.weights = optimizer.parameters
        if sens is not None and check_number(sens, "sens", owner) == 0:
            raise ValueError(f"For '{owner}', the 'sens' can not be 0")
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = check_bool(return_grad, "return_grad", owner)
        self.weights_name = [p.name for p in self.weights]
        self.parallel_mode = get_auto_parallel_context("parallel_mode")
        self.reducer_flag = self.parallel_mode in (ParallelMode.DATA_PARALLEL,
                                                   ParallelMode.HYBRID_PARALLEL)
        self.grad_reducer = Identity()
        if self.reducer_flag:
            self.mean = get_auto_parallel_context("gradients_mean")
            self.degree = (get_auto_parallel_context("device_num")
                           if parallel_key_is_set("device_num") else get_group_size())
            self.grad_reducer = DistributedGradReducer(self.weights, self.mean, self.degree,
                                                       group=GlobalComm.WORLD_COMM_GROUP)
            if get_auto_parallel_context("parameter_broadcast") and _backend.STATE.inited:
                broadcast_parameters(self.network.get_parameters())
        # The reducer's buckets start during the backward walk only when this class's own
        # `construct` runs: a subclass may change the gradients between backward and reduction.
        self._overlap = self.reducer_flag and type(self).construct is TrainOneStepCell.construct
        self._plain_grad = value_and_grad(self._loss, None, self.weights)
        self._scaled_grad = value_and_grad(self._scaled_forward, None, self.weights,
                                           has_aux=True)

    def _loss(self, *inputs):
        loss = self.network(*inputs)
        if self._overlap:
            self.grad_reducer.start_during_backward()
        return loss

    def _scaled_forward(self, sens, *inputs):
        """(loss * sens, loss): backward then starts from `sens` (cast to the loss's dtype), as
        a sensitivity filled to the loss's shape would."""
        loss = self._loss(*inputs)
        if not isinstance(loss, Tensor):
            raise TypeError(f"For '{type(self).__name__}', the network must return one Tensor "
                            f"(the loss) when a sensitivity is used, but got "
                            f"{type(loss).__name__}")
        with np.errstate(over="ignore"):  # a scale beyond float16's range is meant to be inf
            sens = M.cast(sens, loss.dtype)
        return loss * sens, loss

    def _forward_and_grads(self, inputs, sens):
        """The loss and the gradients of `sens * loss` (`sens` None: of the loss itself)."""
        if sens is None:
            return self._plain_grad(*inputs)
        if not isinstance(sens, Tensor):  # a hyperparameter: a constant of a graph-mode trace
            sens = const(np.asarray(float(sens), np.float32))
        (_, loss), grads = self._scaled_grad(sens, *inputs)
        return loss, grads

    def construct(self, *inputs):
        loss, grads = self._forward_and_grads(inputs, self.sens if self.sense_flag else None)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, dict(zip(self.weights_name, grads))
        return loss
