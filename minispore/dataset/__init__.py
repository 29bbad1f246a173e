"""`mindspore.dataset`: sources (Python data, image, text, audio, TFRecord and MindRecord files),
pipeline ops (map, batch, shuffle, ...), samplers, iterators, callbacks, `config`, the JSON form
of a pipeline, and the `transforms` / `vision` / `text` transform modules."""
from . import callback, config, samplers, text, transforms, vision
from . import datasets_audio, datasets_mindrecord, datasets_text, datasets_vision
from .datasets_mindrecord import *  # noqa: F401,F403
from .datasets_text import *  # noqa: F401,F403
from .datasets_audio import *  # noqa: F401,F403
from .datasets import (BatchDataset, BatchInfo, BucketBatchByLengthDataset, ConcatDataset,
                       Dataset, FilterDataset, FlatMapDataset, MapDataset, MappableDataset,
                       PaddedBatchDataset, ProjectDataset, RenameDataset, RepeatDataset,
                       ShuffleDataset, SkipDataset, SyncWaitDataset, TakeDataset, TFRecordDataset,
                       ZipDataset, compare, deserialize, serialize, show, zip)
from .datasets_vision import *  # noqa: F403
from .callback import DSCallback, WaitedDSCallback
from .iterators import DictIterator, TupleIterator
from .samplers import (BuiltinSampler, DistributedSampler, PKSampler, RandomSampler, Sampler,
                       SequentialSampler, SubsetRandomSampler, SubsetSampler,
                       WeightedRandomSampler)
from .sources import GeneratorDataset, NumpySlicesDataset, PaddedDataset, RandomDataset, Schema

__all__ = [
    "config", "samplers", "transforms", "vision", "zip", "serialize", "deserialize", "show",
    "compare", "BucketBatchByLengthDataset", "PaddedBatchDataset", "SyncWaitDataset",
    "TFRecordDataset", "FlatMapDataset",
    "Dataset", "MappableDataset", "BatchInfo", "BatchDataset", "ConcatDataset", "FilterDataset",
    "MapDataset", "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset",
    "SkipDataset", "TakeDataset", "ZipDataset", "TupleIterator", "DictIterator",
    "GeneratorDataset", "NumpySlicesDataset", "PaddedDataset", "RandomDataset", "Schema",
    "Sampler", "BuiltinSampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
    "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler", "PKSampler", "DSCallback",
    "WaitedDSCallback", "callback",
] + (datasets_mindrecord.__all__ + datasets_text.__all__ + datasets_audio.__all__ +
     datasets_vision.__all__)
