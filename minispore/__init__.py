"""minispore: MindSpore's PyNative API on NumPy. `import minispore as mindspore`."""
from . import _allocator
from . import common
from .common import dtype
from .common.api import JitConfig, jit, jit_class
from .common.dtype import *  # noqa: F401,F403  (float32, int64, ...)
from .common.dtype import dtype_to_nptype, get_py_obj_dtype, pytype_to_dtype
from .common.parameter import Parameter, ParameterTuple
from .common.device import DeviceCtx
from .common.seed import (Generator, default_generator, get_rng_state, get_seed, initial_seed,
                          seed, set_rng_state, set_seed)
from .common.tensor import Tensor, from_numpy, frombuffer, is_tensor, tensor
from .context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, ParallelMode,
                      get_auto_parallel_context, get_context, get_current_device,
                      reset_auto_parallel_context, set_auto_parallel_context, set_context,
                      set_device)
from . import ops
from ._autodiff.engine import get_grad, grad, value_and_grad
from ._autodiff.anomaly import detect_anomaly
from ._autodiff.recompute import recompute
from ._autodiff.functional import jacfwd, jacrev, jvp, vjp
from ._autodiff.batching import vmap
from ._autodiff.saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks
from .ops.function.sparse_func import COOTensor, CSRTensor, RowTensor
from .ops.function.sparse_func import COOTensor as SparseTensor  # MindSpore's deprecated name
from . import nn

from ._version import __version__  # noqa: E402


def manual_seed(seed):
    """Torch-style alias of `set_seed`."""
    set_seed(seed)


def mutable(input_data, dynamic_len=False):
    """Marks data as dynamic for MindSpore's jit; returned unchanged here."""
    return input_data


from . import experimental  # noqa: E402,F401  (torch-style optimizers)
from . import amp  # noqa: E402,F401
from . import dataset  # noqa: E402,F401
from . import train  # noqa: E402,F401
from . import communication, mindrecord, numpy, profiler  # noqa: E402,F401  (mindspore.numpy, ...)
from .profiler import Profiler  # noqa: E402,F401
from .profiler._flops import flops_collection  # noqa: E402,F401
from .train import FlopsUtilizationCollector  # noqa: E402,F401
from .train.summary import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402,F401
from .train._export import export, load, load_mindir, save_mindir  # noqa: E402,F401
from . import onnx  # noqa: E402,F401  (mindspore.onnx.export)
from .train import (  # noqa: E402,F401  (Model, callbacks, metrics, as MindSpore re-exports)
    F1, MAE, MSE, Accuracy, Callback, CheckpointConfig, ConfusionMatrix, DynamicLossScaleManager,
    EarlyStopping, Fbeta, FixedLossScaleManager, History, LambdaCallback, LearningRateScheduler,
    Loss, LossMonitor, LossScaleManager, Metric, Model, ModelCheckpoint, Perplexity, Precision,
    Recall, ReduceLROnPlateau, RunContext, TimeMonitor, Top1CategoricalAccuracy,
    Top5CategoricalAccuracy, TopKCategoricalAccuracy, build_train_network, get_metric_fn, names,
    rearrange_inputs)
from .train import (  # noqa: E402,F401  (metrics, data sinking, resilience callbacks)
    ROC, BackupAndRestore, BleuScore, ConfusionMatrixMetric, CosineSimilarity, DatasetHelper,
    Dice, HausdorffDistance, MeanSurfaceDistance, OcclusionSensitivity, OnRequestExit,
    RootMeanSquareDistance, auc, connect_network_with_dataset, data_sink,
    load_distributed_checkpoint, merge_sliced_parameter)
from .train.serialization import (  # noqa: E402,F401  (checkpoints)
    async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint, load_checkpoint_async,
    load_param_into_net, safetensors_to_ckpt, save_checkpoint)

from .runtime import (  # noqa: E402,F401  (streams, events and runtime settings)
    Event, Stream, StreamCtx, communication_stream, swap_tensors, current_stream, default_stream,
    launch_blocking, lazy_inline, no_inline, run_check, set_cur_stream, set_deterministic,
    set_recursion_limit, synchronize)
from ._memory import (  # noqa: E402,F401  (memory statistics answered on the host)
    empty_cache, max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
    memory_summary, ms_memory_recycle, reset_max_memory_reserved, reset_peak_memory_stats)
from ._affinity import set_cpu_affinity  # noqa: E402,F401
from . import log  # noqa: E402,F401
from . import parallel  # noqa: E402,F401
from .parallel import Layout, load_segmented_checkpoints, shard  # noqa: E402,F401
from .log import get_level, get_log_config  # noqa: E402,F401
from ._missing import missing_names  # noqa: E402

# glibc keeps large NumPy temporaries mapped between steps instead of faulting fresh pages in on
# every step (docs/performance.md: the measured gain and the memory it holds; MINISPORE_MALLOC=
# default turns it off)
_allocator.apply_default()

__getattr__ = missing_names(__name__, globals())
