"""`mindspore.mindrecord`: MindSpore's own dataset file format (writer, reader, index)."""

__all__ = []
