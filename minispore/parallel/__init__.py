"""`mindspore.parallel`: sharding descriptions (`Layout`, `shard`) for code written for
MindSpore's semi-automatic parallel mode, and `load_segmented_checkpoints` (docs/parallel.md).

minispore runs one process, or data parallel (every rank holds the whole model and runs it on
its own batch), so a sharding plan changes where MindSpore would compute, never what: `shard`
returns the function itself, as MindSpore does in a world of one, after checking the plan when
there are several ranks. `Layout` builds the same layout descriptions as MindSpore's.
"""
import copy
import glob
import os

import numpy as np

from .._validator import type_name
from ..communication.management import get_group_size
from ..train.serialization import load_checkpoint

__all__ = ["Layout", "load_segmented_checkpoints", "shard"]

_INTERLEAVED = "interleaved_parallel"


class Layout:
    """A device arrangement: `device_matrix` (a tuple of ints) with one alias per axis
    (`alias_name`). Calling it with one alias (or a tuple of aliases, or "None") per tensor
    dimension gives the layout of a tensor split that way; `to_dict()` describes it, with the
    tensor map MindSpore uses (axis k of the device matrix counted from the right)."""

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, tuple):
            raise TypeError(f"For 'Layout', 'device_matrix' must be a tuple, but got "
                            f"{type_name(device_matrix)}")
        if not isinstance(alias_name, tuple):
            raise TypeError(f"For 'Layout', 'alias_name' must be a tuple, but got "
                            f"{type_name(alias_name)}")
        if len(device_matrix) != len(alias_name):
            raise ValueError(f"For 'Layout', 'device_matrix' {device_matrix} and 'alias_name' "
                             f"{alias_name} must have the same length")
        for d in device_matrix:
            if not isinstance(d, int):
                raise TypeError(f"For 'Layout', the elements of 'device_matrix' must be int, "
                                f"but got {type_name(d)}")
        for a in alias_name:
            if not isinstance(a, str):
                raise TypeError(f"For 'Layout', the elements of 'alias_name' must be str, but "
                                f"got {type_name(a)}")
            if not a:
                raise ValueError("For 'Layout', an element of 'alias_name' is empty")
            if a == "None":
                raise ValueError("For 'Layout', 'None' cannot be an alias name: it means a "
                                 "dimension that is not split")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"For 'Layout', the elements of 'alias_name' {alias_name} must "
                             "differ")
        if _INTERLEAVED in alias_name and alias_name[-1] != _INTERLEAVED:
            raise ValueError(f"For 'Layout', '{_INTERLEAVED}' must be the last alias of "
                             f"{alias_name}")
        size = int(np.prod(device_matrix))
        if rank_list is None:
            rank_list = list(range(size))
        else:
            if not isinstance(rank_list, list):
                raise TypeError(f"For 'Layout', 'rank_list' must be a list, but got "
                                f"{type_name(rank_list)}")
            for r in rank_list:
                if not isinstance(r, int):
                    raise TypeError(f"For 'Layout', the elements of 'rank_list' must be int, "
                                    f"but got {type_name(r)}")
            if len(rank_list) != size:
                raise ValueError(f"For 'Layout', 'rank_list' must have the product of "
                                 f"'device_matrix' ({size}) elements, but got {len(rank_list)}")
        self._device_shape = device_matrix
        self._alias_name = alias_name
        self._rank_list = rank_list
        self._tensor_map = None

    def _axis(self, alias, used):
        if alias == "None":
            return -1
        if alias not in self._alias_name:
            raise ValueError(f"For 'Layout', the axis {alias!r} is not one of "
                             f"{self._alias_name}")
        if alias in used:
            raise ValueError(f"For 'Layout', the axis {alias!r} is used more than once")
        used.append(alias)
        return len(self._alias_name) - 1 - self._alias_name.index(alias)

    def __call__(self, *tensor_map):
        used, mapped = [], []
        for dim in tensor_map:
            if isinstance(dim, tuple):
                mapped.append(tuple(self._axis(a, used) for a in dim))
            else:
                mapped.append(self._axis(dim, used))
        layout = copy.deepcopy(self)
        layout._tensor_map = tuple(mapped)
        return layout

    def to_dict(self):
        """{'device_matrix', 'tensor_map', 'interleaved_parallel', 'alias_name',
        'rank_list'}; the layout must have been applied to a tensor's dimensions first."""
        if self._tensor_map is None:
            raise ValueError("For 'Layout.to_dict', the tensor map is not set: call the layout "
                             "with one alias per tensor dimension first")
        return {"device_matrix": self._device_shape, "tensor_map": self._tensor_map,
                "interleaved_parallel": _INTERLEAVED in self._alias_name,
                "alias_name": self._alias_name, "rank_list": self._rank_list}


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """`fn` (a Cell or function) to run with the given input/output split: returned as it is,
    since every rank here computes the whole of it. With several ranks the plan is checked
    first (each strategy a tuple of per-input tuples or Layouts; `parameter_plan` a dict)."""
    if get_group_size() == 1:
        return fn  # as MindSpore: a world of one runs fn unchanged, unchecked
    if not callable(fn):
        raise TypeError(f"For 'shard', 'fn' must be a Cell or a function, but got "
                        f"{type_name(fn)}")
    for name, plan in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
        if plan is None and name == "out_strategy":
            continue
        if not isinstance(plan, tuple):
            raise TypeError(f"For 'shard', '{name}' must be a tuple, but got {type_name(plan)}")
        for item in plan:
            if item is not None and not isinstance(item, (tuple, Layout)):
                raise TypeError(f"For 'shard', each item of '{name}' must be a tuple, a Layout "
                                f"or None, but got {type_name(item)}")
    if parameter_plan is not None and not isinstance(parameter_plan, dict):
        raise TypeError(f"For 'shard', 'parameter_plan' must be a dict or None, but got "
                        f"{type_name(parameter_plan)}")
    return fn


def load_segmented_checkpoints(ckpt_file_dir, net=None, strict_load=False, filter_prefix=None,
                               dec_key=None, dec_mode="AES-GCM", specify_prefix=None,
                               choice_func=None):
    """Load every `.ckpt` file of the directory `ckpt_file_dir` (each as `load_checkpoint` with
    these arguments, into `net` if given) and return their parameters merged into one dict.
    Files are read in name order, a later file's value winning for a name two files hold
    (MindSpore reads them in directory order)."""
    if not isinstance(ckpt_file_dir, str):
        raise TypeError(f"For 'load_segmented_checkpoints', 'ckpt_file_dir' must be a str, but "
                        f"got {type_name(ckpt_file_dir)}")
    if not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"For 'load_segmented_checkpoints', the directory {ckpt_file_dir!r} "
                         "does not exist or is not a directory")
    merged = {}
    for path in sorted(glob.glob(os.path.join(ckpt_file_dir, "*.ckpt"))):
        merged.update(load_checkpoint(path, net, strict_load, filter_prefix, dec_key, dec_mode,
                                      specify_prefix, choice_func))
    return merged
