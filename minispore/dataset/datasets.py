"""The pipeline's public names: `Dataset` (the ops every dataset has: map, batch, shuffle,
repeat, ...), the op nodes, `MappableDataset` (random-access sources read through a sampler)
and `zip`.

`Dataset` and `MappableDataset` live in `_base`; the nodes, which subclass `Dataset`, in
`_transform_ops` (map, filter, batch, project, rename) and `_order_ops` (shuffle, repeat, take,
skip, zip, concat, split). Importing them here also registers the nodes that `Dataset.<op>`
builds.
"""
from ._base import Dataset, MappableDataset
from ._order_ops import (ConcatDataset, RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset,
                         ZipDataset, zip)
from ._transform_ops import (BatchDataset, BatchInfo, FilterDataset, MapDataset, ProjectDataset,
                             RenameDataset)

__all__ = ["BatchDataset", "BatchInfo", "ConcatDataset", "Dataset", "FilterDataset", "MapDataset",
           "MappableDataset", "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset",
           "SkipDataset", "TakeDataset", "ZipDataset", "zip"]
