"""Image and box primitives: resize kernels, grid sampling, crop_and_resize, ROI align, IoU and box coding, non-maximum suppression, colour-space conversion."""
