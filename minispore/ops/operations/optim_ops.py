"""Optimizer-update primitives (ApplyMomentum, ApplyAdam-style, SparseApply*) that write Parameters in place under the version counters."""
