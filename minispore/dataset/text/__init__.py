"""`mindspore.dataset.text`: tokenizers, vocabularies and text transforms."""

__all__ = []
