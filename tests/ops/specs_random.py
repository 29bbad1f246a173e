"""Specs of the random primitives (same format as specs.py).

The random family registers no primitive: its samplers (minispore/ops/operations/random_ops.py,
minispore/ops/function/random_func.py) return constants to the tape and are tested by their
distributions and seeding in tests/ops/test_random_family.py."""
