"""Counts NumPy's array-data allocations: a PyDataMem handler (NumPy >= 1.22) that records
the size of every block NumPy asks for, set for the current context by `counting()`. Every
array's data, scalars' 0-d results included, goes through it; NumPy's iteration buffers and
Python objects do not. (tracemalloc's domain 389047 sees the same blocks but only the live
ones.) Blocks made while counting are freed through the same handler, whose callbacks live as
long as this module."""
import contextlib
import ctypes

import numpy as np

_MALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_CALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)
_REALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)


class _Allocator(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("malloc", _MALLOC), ("calloc", _CALLOC),
                ("realloc", _REALLOC), ("free", _FREE)]


class _Handler(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 127), ("version", ctypes.c_uint8),
                ("allocator", _Allocator)]


_libc = ctypes.CDLL(None)
_libc.malloc.restype = _libc.calloc.restype = _libc.realloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.calloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
_libc.realloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.free.argtypes = [ctypes.c_void_p]
log = []


@_MALLOC
def _malloc(ctx, size):
    log.append(size)
    return _libc.malloc(size)


@_CALLOC
def _calloc(ctx, n, size):
    log.append(n * size)
    return _libc.calloc(n, size)


@_REALLOC
def _realloc(ctx, ptr, size):
    log.append(size)
    return _libc.realloc(ptr, size)


@_FREE
def _free(ctx, ptr, size):
    _libc.free(ptr)


_handler = _Handler(b"counting", 1, _Allocator(None, _malloc, _calloc, _realloc, _free))
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_name = ctypes.create_string_buffer(b"mem_handler")  # the capsule keeps the pointer
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule = ctypes.pythonapi.PyCapsule_New(ctypes.addressof(_handler), ctypes.addressof(_name), None)
_core = getattr(np, "_core", None) or np.core
_api = ctypes.cast(ctypes.pythonapi.PyCapsule_GetPointer(
    _core._multiarray_umath._ARRAY_API, None), ctypes.POINTER(ctypes.c_void_p))
_set_handler = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(_api[304])  # SetHandler


@contextlib.contextmanager
def counting():
    """The list of the sizes of the blocks NumPy allocates inside the block."""
    old = _set_handler(_capsule)
    del log[:]
    try:
        yield log
    finally:
        _set_handler(old)
