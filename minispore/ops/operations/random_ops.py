"""Random-sampling primitives: multinomial, gamma, poisson, laplace, truncated normal, categorical, shuffles and candidate samplers, seeded by set_seed and a per-op seed."""
