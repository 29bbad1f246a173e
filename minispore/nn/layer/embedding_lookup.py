"""EmbeddingLookup and MultiFieldEmbeddingLookup: embedding tables looked up on the host, with
out-of-range ids giving zero rows and an optional max-norm clip of the looked-up rows."""
import numpy as np

from ..._autodiff.tape import const
from ..._validator import (
    check_bool,
    check_one_of,
    check_positive_float,
    check_positive_int,
    check_type,
)
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.tensor import Tensor
from ...ops.function import array_func as AF
from ...ops.function import scatter_func as SC
from ...ops.primitive import data_function
from ..cell import Cell
from .basic import new_parameter
from .extra import ClipByNorm

__all__ = ["EmbeddingLookup", "MultiFieldEmbeddingLookup"]


def _int_tensor(x, arg, owner, dtypes=(np.int32, np.int64)):
    check_type(x, Tensor, arg, owner)
    if x._data.dtype not in dtypes:
        raise TypeError(f"For '{owner}', the '{arg}' must be a Tensor of "
                        f"{' or '.join(np.dtype(d).name for d in dtypes)}, but got {x.dtype}")
    return x


def _valid_ids(ids, vocab_size, dtype):
    """Ids with those outside [0, vocab_size) replaced by 0, the (..., 1) mask (of `dtype`) of
    the valid ones, and whether all are valid (0-d bool): a DataFunction."""
    valid = (ids >= 0) & (ids < vocab_size)
    return np.where(valid, ids, 0), valid[..., None].astype(dtype), np.asarray(valid.all())


def _field_segments(field_ids, values, field_size, operator):
    """MultiFieldEmbeddingLookup's segment of each entry (sample * field_size + field) and,
    for MAX, the -FLT_MAX penalty (batch, n, 1) of zero values and the (segments, 1) mask of
    the fields with a nonzero value; else the (segments, 1) scale of MEAN (1 / sum(|values|),
    0 for an empty field; unused by SUM). A DataFunction."""
    batch = field_ids.shape[0]
    segments = batch * field_size
    seg_ids = field_ids + (np.arange(batch, dtype=np.int32) * field_size)[:, None]
    count = np.zeros(segments, np.float32)
    if operator == "MAX":
        masked = (values == 0).astype(np.float32)[..., None]
        np.add.at(count, seg_ids.reshape(-1), np.abs(values).reshape(-1))
        return (seg_ids.reshape(-1), masked * np.float32(-3.402823466e38),
                (count != 0).astype(np.float32)[:, None])
    if operator == "MEAN":
        np.add.at(count, seg_ids, np.abs(values))
    scale = np.where(count != 0, 1.0 / np.where(count != 0, count, 1.0), 0.0)
    return seg_ids, scale.astype(np.float32)[:, None]


class EmbeddingLookup(Cell):
    """Rows of `embedding_table` (vocab_size, embedding_size), initialised by `param_init`, at
    integer `indices` of any shape; ids outside [0, vocab_size) give zero rows. With
    `max_norm`, each looked-up row is clipped to that L2 norm. `target`, `slice_mode` and
    `manual_shapes` choose device placement and model-parallel sharding in MindSpore; here they
    are checked and kept."""

    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 dtype=mstype.float32):
        super().__init__()
        owner = type(self).__name__
        self.sparse = check_bool(sparse, "sparse", owner)
        self.vocab_size = check_positive_int(vocab_size, "vocab_size", owner)
        self.target = check_one_of(target, ("CPU", "DEVICE"), "target", owner)
        if not sparse and target == "CPU":
            raise ValueError(f"For '{owner}', 'sparse' must be True when 'target' is \"CPU\", "
                             f"but got 'sparse': {sparse} and 'target': {target}")
        self.embedding_size = check_positive_int(embedding_size, "embedding_size", owner)
        self.slice_mode, self.manual_shapes = slice_mode, manual_shapes
        self.embedding_table = new_parameter(
            initializer(param_init, (vocab_size, embedding_size), dtype), "embedding_table")
        self.max_norm = None
        if max_norm is not None:
            self.max_norm = check_positive_float(max_norm, "max_norm", owner)

    def _lookup(self, indices):
        # recorded nodes: a graph-mode replay checks the new ids (the `all` is a guard)
        safe, valid, all_valid = data_function(
            _valid_ids, indices, static=(self.vocab_size, self.embedding_table._data.dtype))
        out = AF.gather(self.embedding_table, safe, 0)
        if not all_valid.item():
            out = out * valid
        if self.max_norm is not None:
            axes = tuple(range(indices.ndim, out.ndim))
            out = ClipByNorm(axes)(out, const(np.asarray(self.max_norm, np.float32)))
        return out

    def construct(self, indices):
        return self._lookup(_int_tensor(indices, "indices", type(self).__name__))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"target={self.target}, slice_mode={self.slice_mode}, "
                f"max_norm={self.max_norm}, sparse={self.sparse}")


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Embeddings of (batch, n) `input_indices`, weighted by float32 `input_values`, merged per
    field: `field_ids` (batch, n, int32) name each id's field in [0, field_size); the output
    (batch, field_size, embedding_size) holds each field's SUM, MEAN (divided by the sum of
    |values|, 0 for an empty field) or MAX (over entries with nonzero value; 0 for an empty
    field)."""

    OPERATOR_SUM = "SUM"
    OPERATOR_MEAN = "MEAN"
    OPERATOR_MAX = "MAX"

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal",
                 target="CPU", slice_mode="batch_slice", feature_num_list=None, max_norm=None,
                 sparse=True, operator="SUM", dtype=mstype.float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode,
                         feature_num_list, max_norm, sparse, dtype=dtype)
        owner = "MultiFieldEmbeddingLookup"
        self.field_size = check_positive_int(field_size, "field_size", owner)
        self.operator = check_one_of(operator, ("SUM", "MAX", "MEAN"), "operator", owner)

    def construct(self, input_indices, input_values, field_ids):
        owner = "MultiFieldEmbeddingLookup"
        for arg, x in (("input_indices", input_indices), ("input_values", input_values),
                       ("field_ids", field_ids)):
            check_type(x, Tensor, arg, owner)
            if x.ndim != 2:
                raise ValueError(f"For '{owner}', the dimension of '{arg}' must be 2, but got "
                                 f"{x.ndim}")
        _int_tensor(input_indices, "input_indices", owner)
        _int_tensor(input_values, "input_values", owner, (np.float32,))
        _int_tensor(field_ids, "field_ids", owner, (np.int32,))
        batch, n = input_indices.shape
        segments = batch * self.field_size
        # recorded nodes: a graph-mode replay computes them from the new ids and values
        parts = data_function(_field_segments, field_ids, input_values,
                              static=(self.field_size, self.operator))
        out = self._lookup(input_indices)
        weights = AF.reshape(input_values, (batch, n, 1))
        embedding = weights * out
        if self.operator == "MAX":
            seg_ids, penalty, nonempty = parts
            merged = SC.unsorted_segment_max(
                AF.reshape(embedding + penalty, (-1, self.embedding_size)), seg_ids, segments)
            merged = merged * nonempty
        else:
            seg_ids, scale = parts
            merged = SC.unsorted_segment_sum(embedding, seg_ids, segments)
            if self.operator == "MEAN":
                merged = merged * scale
        return AF.reshape(merged, (batch, self.field_size, -1))
