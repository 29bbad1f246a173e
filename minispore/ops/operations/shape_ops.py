"""Shape and layout primitives: space/batch/depth shuffles, strided slices, mirror padding, reverse_sequence, patch extraction."""
