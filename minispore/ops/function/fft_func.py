"""FFT and complex-number functions: ops.fft, ops.rfft2, ops.fftshift, ops.stft, ops.real, ops.angle, the window functions."""

__all__ = []

# User-facing Primitive classes defined here (MindSpore classes that are composites), exported
# by ops.operations.
PRIMITIVE_CLASSES = ()
