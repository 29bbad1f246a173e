"""`minispore.train.callback`: hooks into `Model.train` / `eval` / `fit` and the standard
callbacks (loss and time monitors, checkpoints, early stopping, learning-rate control)."""
from ._backup_and_restore import BackupAndRestore
from ._callback import Callback, RunContext
from ._checkpoint import CheckpointConfig, ModelCheckpoint
from ._flops_collector import FlopsUtilizationCollector
from ._lr_scheduler import LearningRateScheduler
from ._monitors import History, LambdaCallback, LossMonitor, TimeMonitor
from ._on_request_exit import OnRequestExit
from ._plateau import EarlyStopping, ReduceLROnPlateau

__all__ = ["Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "RunContext", "LearningRateScheduler", "History", "LambdaCallback",
           "ReduceLROnPlateau", "EarlyStopping", "BackupAndRestore", "OnRequestExit",
           "FlopsUtilizationCollector"]
