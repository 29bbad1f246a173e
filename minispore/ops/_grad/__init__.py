"""MindSpore 1.x's import path for Python backward rules: `ops._grad.grad_base`."""
