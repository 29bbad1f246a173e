"""MindSpore's import path for Python backward rules: `ops._grad_experimental.grad_base`."""
