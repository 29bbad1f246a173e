"""Micro-batch wrappers of MindSpore's parallel training (MicroBatchInterleaved, PipelineCell,
VirtualDatasetCellTriple). On one device there is no pipeline stage or dataset shard to place:
the wrappers compute what MindSpore computes on the whole batch, the network's outputs on the
micro-batches added up."""
from ..._validator import type_name
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["MicroBatchInterleaved", "PipelineCell", "VirtualDatasetCellTriple"]


def _micro_batch(inputs, i, parts, owner):
    """The i-th of `parts` equal slices along axis 0 of every input."""
    out = []
    for x in inputs:
        n = x.shape[0]
        if n % parts:
            raise ValueError(f"For '{owner}', the first dimension of each input ({n}) must be "
                             f"divisible by {parts}, but got shape {x.shape}")
        step = n // parts
        out.append(x[i * step:(i + 1) * step])
    return out


def _check_count(value, arg, owner):
    if not isinstance(value, int):
        raise TypeError(f"For '{owner}', the argument '{arg}' must be integer, but got the "
                        f"type : {type(value)}.")
    if value <= 0:
        raise ValueError(f"For '{owner}', the argument '{arg}' must be large than 0, but got "
                         f"{value}.")
    return value


class MicroBatchInterleaved(Cell):
    """network(*inputs) computed as the sum of the network over `interleave_num` equal slices
    of the inputs along axis 0 (MindSpore interleaves their communication and computation)."""

    def __init__(self, network, interleave_num=2):
        super().__init__(auto_prefix=False)
        self.interleave_num = _check_count(interleave_num, "interleave_num",
                                           "MicroBatchInterleaved")
        self.network = network

    def construct(self, *inputs):
        output = 0.0
        for i in range(self.interleave_num):
            part = _micro_batch(inputs, i, self.interleave_num, "MicroBatchInterleaved")
            output = output + self.network(*part)
        return output


class PipelineCell(Cell):
    """The sum of `network` over `micro_size` equal micro-batches (slices along axis 0) of the
    inputs. `stage_config` ({cell name: stage}) and `segment_config` ({cell name: segment})
    set `pipeline_stage` / `pipeline_segment` on the named sub-cells; a name that matches no
    sub-cell raises a KeyError."""

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'PipelineCell', the argument 'network' must cell type, but got "
                            f"the type : {type(network)}.")
        self.network = network
        self.micro_size = _check_count(micro_size, "micro_size", "PipelineCell")
        if stage_config is not None:
            self._configure(stage_config, "pipeline_stage", "stage_config")
        if segment_config is not None:
            self._configure(segment_config, "pipeline_segment", "segment_config")

    def _configure(self, config, attr, arg):
        left = dict(config)
        for name, cell in self.network.cells_and_names():
            if name and name in left:
                object.__setattr__(cell, attr, left.pop(name))
        if str(self.network) in left:
            object.__setattr__(self.network, attr, left.pop(str(self.network)))
        if left:
            raise KeyError(f"For 'PipelineCell', the argument '{arg}' : {left} is not found in "
                           f"'network' : {type_name(self.network)}")

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
              level=0):
        raise ValueError("For 'PipelineCell', no 'shard' on 'PipelineCell' is allowed.")

    def construct(self, *inputs):
        ret = None
        for i in range(self.micro_size):
            out = self.network(*_micro_batch(inputs, i, self.micro_size, "PipelineCell"))
            ret = out if ret is None else ret + out
        return ret


class VirtualDatasetCellTriple(Cell):
    """`backbone(a, b, c)`: in auto-parallel MindSpore splits the three dataset inputs over the
    devices here; on one device the batch is whole."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, a, b, c):
        for arg, x in (("a", a), ("b", b), ("c", c)):
            if not isinstance(x, Tensor):
                raise TypeError(f"For 'VirtualDatasetCellTriple', the '{arg}' must be a Tensor, "
                                f"but got {type_name(x)}")
        return self._backbone(a, b, c)
