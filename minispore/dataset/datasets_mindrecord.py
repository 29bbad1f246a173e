"""MindDataset: reading MindRecord files (see `minispore.mindrecord`)."""

__all__ = []
