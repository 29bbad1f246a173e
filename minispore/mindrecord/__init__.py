"""`mindspore.mindrecord`: MindSpore's own dataset file format — `FileWriter` writes rows into
MindRecord files (with the SQLite `.db` index beside each), `FileReader` and `MindPage` read
them; `dataset.MindDataset` reads them into a pipeline. Files are byte-compatible with MindSpore
2.10 both ways (see docs/mindrecord.md)."""
from ._errors import FAILED, SUCCESS, MSRStatus  # noqa: F401 (MSRStatus: MindSpore's name)
from .config import set_dec_mode, set_enc_key, set_enc_mode
from .filereader import FileReader, MindPage
from .filewriter import FileWriter
from .tools import Cifar10ToMR, Cifar100ToMR, CsvToMR, ImageNetToMR, MnistToMR, TFRecordToMR

__all__ = [
           "FAILED",
           "SUCCESS",
           "Cifar10ToMR",
           "Cifar100ToMR",
           "CsvToMR",
           "FileReader",
           "FileWriter",
           "ImageNetToMR",
           "MindPage",
           "MnistToMR", "TFRecordToMR",
           "set_dec_mode",
           "set_enc_key",
           "set_enc_mode",
]

