"""MindRecord status codes (`MSRStatus`) and MindSpore's MindRecord exception classes (`mindspore.mindrecord.common.exceptions`), each
also a subclass of the Python exception it stands for, so `except ValueError` catches a bad
value."""

import enum

__all__ = [
    "FAILED",
    "SUCCESS",
    "MRMDefineCategoryError",
    "MRMDefineIndexError",
    "MRMInvalidHeaderSizeError",
    "MRMInvalidPageSizeError",
    "MRMInvalidSchemaError",
    "MRMUnsupportedSchemaError",
    "MSRStatus",
    "MindRecordException",
    "ParamTypeError",
    "ParamValueError",
]


class MSRStatus(enum.Enum):
    """Status codes of the MindRecord calls."""

    SUCCESS = 0
    FAILED = 1


SUCCESS = MSRStatus.SUCCESS
FAILED = MSRStatus.FAILED


class MindRecordException(Exception):
    """Base of the MindRecord errors; str() is '[ClassName]: message', as in MindSpore."""

    prefix = ""

    def __init__(self, detail=""):
        self.error_msg = f"{self.prefix}{detail}"
        super().__init__(self.error_msg)

    def __str__(self):
        return f"[{type(self).__name__}]: {self.error_msg}"


class ParamValueError(MindRecordException, ValueError):
    prefix = "Invalid parameter value. "


class ParamTypeError(MindRecordException, TypeError):
    def __init__(self, param_name, expected_type):
        super().__init__(f"Invalid parameter type. '{param_name}' expect {expected_type} type.")


class MRMInvalidSchemaError(MindRecordException, ValueError):
    prefix = "Schema format is error. Detail: "


class MRMDefineIndexError(MindRecordException, ValueError):
    prefix = "Failed to define index field. Detail: "


class MRMDefineCategoryError(MindRecordException, ValueError):
    prefix = "Failed to define category field. Detail: "


class MRMInvalidHeaderSizeError(MindRecordException, ValueError):
    prefix = "Invalid header size. "


class MRMInvalidPageSizeError(MindRecordException, ValueError):
    prefix = "Invalid page size. "


class MRMUnsupportedSchemaError(MindRecordException, ValueError):
    prefix = "Schema is not supported. Detail: "
