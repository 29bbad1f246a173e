"""Datasets read from local text files: TextFileDataset, CSVDataset, IMDBDataset, AGNewsDataset,
CLUEDataset, ..."""

__all__ = []
