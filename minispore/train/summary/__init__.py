"""Summaries for TensorBoard: `SummaryRecord` (write values at a step) and the `SummaryCollector`
callback (record a `Model` run). Needs `tensorboardX` (`pip install 'minispore[summary]'`);
`tensorboard --logdir <dir>` shows what they write."""
from ._collector import SummaryCollector  # noqa: F401  (mindspore.train.SummaryCollector)
from ._landscape import SummaryLandscape  # noqa: F401  (mindspore.train.SummaryLandscape)
from ._record import SummaryRecord

__all__ = ["SummaryRecord"]  # as mindspore.train.summary; SummaryCollector is importable too
