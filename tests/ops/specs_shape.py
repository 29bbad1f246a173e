"""Specs of the shape primitives (same format as specs.py).

The shape family registers no primitive of its own: its functions and classes
(minispore/ops/function/shape_func.py) are composed from the array primitives (reshape,
transpose, getitem, gather, pad, concat), whose specs are in specs.py; they are tested in
tests/ops/test_shape_family.py."""
