"""`BackupAndRestore`: keep a backup of the training network's parameters, restored when a run
starts (after a crash), deleted when training ends."""
import os

from ..._validator import check_bool, check_positive_int
from .. import serialization
from ._callback import Callback
from ._checkpoint import _make_directory

__all__ = ["BackupAndRestore"]


class BackupAndRestore(Callback):
    """Back up the training network (its parameters, optimizer state included) to
    `backup_dir/backup.ckpt` every `save_freq` epochs, with the epoch and step reached
    (`epoch_num`, `step_num`); at the start of training, load the backup into the training
    network when one exists. After a crash, a new `Model.train(..., initial_epoch=E)` with this
    callback continues from the backup (E is the backup's `epoch_num`) and gives the same
    parameters as an uninterrupted run. With `delete_checkpoint`, the backup is removed when
    training ends normally.

    Args:
        backup_dir (str): the directory of the backup (created if needed).
        save_freq (Union[str, int]): 'epoch' (every epoch) or a number of epochs.
            Default: 'epoch'.
        delete_checkpoint (bool): delete the backup at the end of training. Default: True.

    Raises:
        ValueError: `backup_dir` not a non-empty str, `save_freq` < 1.
        TypeError: `save_freq` neither 'epoch' nor an int, `delete_checkpoint` not a bool.
    """

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        owner = "BackupAndRestore"
        if not isinstance(backup_dir, str) or not backup_dir.strip():
            raise ValueError(f"For '{owner}', 'backup_dir' must be a non-empty str, but got "
                             f"{backup_dir!r}")
        self.backup_file = os.path.join(_make_directory(backup_dir), "backup.ckpt")
        if save_freq == "epoch":
            self.save_freq = 1
        else:
            self.save_freq = check_positive_int(save_freq, "save_freq", owner)
        self.delete_checkpoint = check_bool(delete_checkpoint, "delete_checkpoint", owner)

    def on_train_begin(self, run_context):
        """Load the backup into the training network, if there is one."""
        if os.path.exists(self.backup_file):
            serialization.load_checkpoint(self.backup_file,
                                          net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        """Back up every `save_freq`-th epoch."""
        cb_params = run_context.original_args()
        epoch = cb_params.cur_epoch_num
        if epoch % self.save_freq == 0:
            serialization.save_checkpoint(
                cb_params.train_network, self.backup_file,
                append_dict={"epoch_num": epoch, "step_num": cb_params.cur_step_num})

    def on_train_end(self, run_context):
        """Remove the backup (with `delete_checkpoint`)."""
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
