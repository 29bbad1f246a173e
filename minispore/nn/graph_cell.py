"""GraphCell: a graph loaded from a MINDIR file (`minispore.load`), run as a Cell."""
import numpy as np

from .._jit.runtime import Jitted
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from .cell import Cell

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """Runs `graph` (from `minispore.load`) on its inputs with minispore's ops, captured and
    replayed by the graph-mode machinery (`minispore._jit`; a call it cannot capture, or one
    under a gradient transform, runs the nodes eagerly, with the same results). The graph's
    weights become this Cell's Parameters under their file names; `params_init`
    ({name: Parameter or Tensor}) gives new values for some of them (same shape and dtype)."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not all(hasattr(graph, a) for a in ("run", "params", "inputs", "constants")):
            raise TypeError(f"For 'GraphCell', 'graph' must be a graph returned by "
                            f"minispore.load, but got {type(graph).__name__}")
        if obf_random_seed is not None:
            raise ValueError("For 'GraphCell', 'obf_random_seed' (obfuscated models) is not "
                             "supported by minispore")
        if params_init is not None and not isinstance(params_init, dict):
            raise TypeError(f"For 'GraphCell', 'params_init' must be a dict, but got "
                            f"{type(params_init).__name__}")
        params_init = params_init or {}
        for name in params_init:
            if name not in graph.params:
                raise ValueError(f"For 'GraphCell', 'params_init' names '{name}', which the "
                                 f"graph does not have")
        self.__dict__["graph"] = graph
        self.__dict__["_graph_params"] = {}
        for name, arr in graph.params.items():
            value = params_init.get(name)
            if value is not None:
                if not isinstance(value, Tensor):
                    raise TypeError(f"For 'GraphCell', params_init['{name}'] must be a Tensor "
                                    f"or Parameter, but got {type(value).__name__}")
                new = value._data
                if new.shape != arr.shape or new.dtype != arr.dtype:
                    raise ValueError(f"For 'GraphCell', params_init['{name}'] must have shape "
                                     f"{list(arr.shape)} and dtype {arr.dtype}, but got "
                                     f"{list(new.shape)}, {new.dtype}")
                arr = new
            p = Parameter(Tensor(np.array(arr)), name=name)
            self.insert_param_to_cell(name, p, check_name_contain_dot=False)
            self._graph_params[name] = p

        # the graph's constant Tensors, held where a capture's state check looks (one level
        # into this Cell's attributes), so a replay may read them by reference
        self.__dict__["_graph_constants"] = dict(enumerate(graph.constants()))
        self.__dict__["_jitted"] = Jitted(GraphCell._run)

    def construct(self, *inputs):
        return self._jitted(self, *inputs)

    def _run(self, *inputs):
        return self.graph.run(self._graph_params, inputs)
