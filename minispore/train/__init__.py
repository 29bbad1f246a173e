"""`minispore.train`: checkpoints (serialization); Model, callbacks and metrics."""
from .serialization import (async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint,
                            load_checkpoint_async, load_param_into_net, safetensors_to_ckpt,
                            save_checkpoint)
from . import callback, metrics  # noqa: E402
from ..amp.loss_scale_manager import (  # noqa: E402,F401
    DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager)
from .amp import build_train_network  # noqa: E402
from .callback import *  # noqa: E402,F401,F403
from .metrics import *  # noqa: E402,F401,F403
from .model import Model  # noqa: E402
from .dataset_helper import DatasetHelper, connect_network_with_dataset  # noqa: E402,F401
from .data_sink import data_sink  # noqa: E402,F401
from ._distributed_ckpt import (  # noqa: E402,F401
    load_distributed_checkpoint, merge_sliced_parameter)
from .summary import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402,F401
from ._export import export, load  # noqa: E402,F401
