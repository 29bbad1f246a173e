"""Embedding: a lookup table of trainable rows."""
import numpy as np

from ..._validator import check_bool, check_int_range, check_positive_int
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.tensor import Tensor
from ...ops.function import layer_func as LF
from ...ops.function.math_func import matmul
from ...ops.function.nn_func import one_hot
from ..cell import Cell
from .basic import new_parameter

__all__ = ["Embedding"]


class Embedding(Cell):
    """Rows of `embedding_table` (vocab_size, embedding_size) at integer ids of any shape; the
    output has shape ids.shape + (embedding_size,).

    Args:
        vocab_size, embedding_size (int), use_one_hot (bool: same values, computed through a
        one-hot matmul), embedding_table: initializer (default 'normal', sigma 0.01),
        dtype: the ids' dtype, padding_idx: a row initialised to zeros that gets no gradient.
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = check_positive_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = check_bool(use_one_hot, "use_one_hot", "Embedding")
        self.dtype = dtype
        if padding_idx is not None:
            padding_idx = check_int_range(padding_idx, "padding_idx", "Embedding", -vocab_size,
                                          vocab_size, high_inclusive=False) % vocab_size
        self.padding_idx = padding_idx
        table = initializer(embedding_table, (vocab_size, embedding_size), mstype.float32)
        if padding_idx is not None:
            table._data[padding_idx] = 0  # a fresh array: initializer copies a Tensor init
        self.embedding_table = new_parameter(table, "embedding_table")

    def construct(self, ids):
        if not isinstance(ids, Tensor) or ids._data.dtype.kind not in "iu":
            raise TypeError(f"For 'Embedding', the ids must be an integer Tensor, but got "
                            f"{getattr(ids, 'dtype', type(ids).__name__)}")
        if self.use_one_hot:
            hot = one_hot(ids, self.vocab_size, 1.0, 0.0).astype(self.embedding_table.dtype)
            out = matmul(hot, self.embedding_table)
            if self.padding_idx is not None:
                keep = (ids._data != self.padding_idx)[..., None]
                out = out * Tensor(keep.astype(np.float32))
            return out
        return LF.embedding(ids, self.embedding_table, self.padding_idx)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")
