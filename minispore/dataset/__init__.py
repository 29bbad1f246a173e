"""`mindspore.dataset`: sources, pipeline ops (map, batch, shuffle, ...), samplers, iterators,
`config`, and the `transforms` / `vision` transform modules."""
from . import config, samplers, text, transforms, vision
from . import datasets_mindrecord, datasets_text
from .datasets_mindrecord import *  # noqa: F401,F403
from .datasets_text import *  # noqa: F401,F403
from .datasets import (BatchDataset, BatchInfo, ConcatDataset, Dataset, FilterDataset,
                       MapDataset, MappableDataset, ProjectDataset, RenameDataset, RepeatDataset,
                       ShuffleDataset, SkipDataset, TakeDataset, ZipDataset, zip)
from .datasets_vision import (Cifar10Dataset, Cifar100Dataset, FashionMnistDataset,
                              ImageFolderDataset, MnistDataset)
from .iterators import DictIterator, TupleIterator
from .samplers import (BuiltinSampler, DistributedSampler, RandomSampler, Sampler,
                       SequentialSampler, SubsetRandomSampler, SubsetSampler)
from .sources import GeneratorDataset, NumpySlicesDataset, Schema

__all__ = [
    "config", "samplers", "transforms", "vision", "zip",
    "Dataset", "MappableDataset", "BatchInfo", "BatchDataset", "ConcatDataset", "FilterDataset",
    "MapDataset", "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset",
    "SkipDataset", "TakeDataset", "ZipDataset", "TupleIterator", "DictIterator",
    "GeneratorDataset", "NumpySlicesDataset", "Schema", "MnistDataset", "FashionMnistDataset",
    "Cifar10Dataset", "Cifar100Dataset", "ImageFolderDataset",
    "Sampler", "BuiltinSampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
    "SubsetRandomSampler", "SubsetSampler",
] + datasets_mindrecord.__all__ + datasets_text.__all__
