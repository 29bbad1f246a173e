"""Encrypted MindRecord files: `set_enc_key`, `set_enc_mode`, `set_dec_mode`.

With a key set, `FileWriter.commit` encrypts each data file and its `.db` in place, and the
readers decrypt such files (into a private temporary folder, removed at exit) before reading.
The layout is MindSpore's, so either side reads the other's encrypted files: the file is cut into
64 MiB pieces, each stored as a 4-byte big-endian length and an AES-GCM block (4-byte
little-endian magic 0x7F3A5ED8, the 16-byte tag, then the block length, the IV length (16), the
IV, the ciphertext length and the ciphertext, as little-endian int32s; as OpenSSL's GCM does by
default, only the first 12 bytes of the stored IV are used); a zero length, the mode
("AES-GCM" or "UDF-ENC" for a user function) and b"ENCRYPT" end the file.

AES-GCM needs the `cryptography` package (pip install 'minispore[crypto]').
"""
import atexit
import os
import shutil
import struct
import tempfile
import threading

__all__ = ["set_dec_mode", "set_enc_key", "set_enc_mode"]

_STATE = {"key": None, "enc_mode": "AES-GCM", "dec_mode": None}
_END_FLAG = b"ENCRYPT"
_GCM_MAGIC = 0x7F3A5ED8
_PIECE = 64 * 1024 * 1024
_MAX_BLOCK = _PIECE + 64
_LOCK = threading.Lock()
_TEMP = {}


def set_enc_key(enc_key):
    """Set the key (a str of 16, 24 or 32 characters) that encrypts the MindRecord files written
    from now on and decrypts those read; None turns encryption off.

    Raises:
        ValueError: a key that is not a str, or of another length.
    """
    if enc_key is None:
        _STATE["key"] = None
        return
    if not isinstance(enc_key, str):
        raise ValueError("The input enc_key is not str.")  # noqa: TRY004 (as MindSpore)
    if len(enc_key) not in (16, 24, 32):
        raise ValueError("The length of input enc_key is not 16, 24, 32.")
    _STATE["key"] = enc_key


def set_enc_mode(enc_mode="AES-GCM"):
    """Set the encryption: "AES-GCM", or a function `f(file_in, file_size, file_out, key)` that
    writes the encrypted bytes of file_in to file_out.

    Raises:
        ValueError: any other mode.
    """
    if callable(enc_mode):
        _STATE["enc_mode"] = enc_mode
        return
    if not isinstance(enc_mode, str):
        raise ValueError("The input enc_mode is not str or callable.")  # noqa: TRY004
    if enc_mode != "AES-GCM":
        raise ValueError("The input enc_mode is invalid.")
    _STATE["enc_mode"] = enc_mode


def set_dec_mode(dec_mode="AES-GCM"):
    """Set the decryption: "AES-GCM", a function `f(file_in, file_size, file_out, key)`, or
    None (the mode of `set_enc_mode`).

    Raises:
        ValueError: any other mode.
    """
    if dec_mode is None or callable(dec_mode):
        _STATE["dec_mode"] = dec_mode
        return
    if not isinstance(dec_mode, str):
        raise ValueError("The input dec_mode is not str or callable.")  # noqa: TRY004
    if dec_mode != "AES-GCM":
        raise ValueError("The input dec_mode is invalid.")
    _STATE["dec_mode"] = dec_mode


def enc_key():
    return _STATE["key"]


def _dec_mode():
    mode = _STATE["dec_mode"]
    if mode is None:
        if callable(_STATE["enc_mode"]):
            raise RuntimeError("You use custom encryption, so you must also define custom "
                               "decryption.")
        return _STATE["enc_mode"]
    return mode


def _mode_name(mode):
    return b"UDF-ENC" if callable(mode) else mode.encode()


def _aesgcm(key):
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise ImportError("Encrypted MindRecord files need the 'cryptography' package: pip "
                          "install 'minispore[crypto]' (or pip install cryptography)") from None
    return AESGCM(key.encode("utf-8"))


def _encrypt_piece(cipher, data):
    iv = os.urandom(16)
    sealed = cipher.encrypt(iv[:12], data, None)  # OpenSSL's GCM default: the first 12 bytes
    body, tag = sealed[:-16], sealed[-16:]
    block = struct.pack("<ii", 4 + 16 + 4 + len(body), 16) + iv + \
        struct.pack("<i", len(body)) + body
    return struct.pack("<I", _GCM_MAGIC) + tag + block


def encrypt_file(path):
    """Encrypt the file `path` in place with the current key and mode."""
    key, mode = _STATE["key"], _STATE["enc_mode"]
    tmp = path + ".encrypt"
    size = os.path.getsize(path)
    with open(path, "rb") as src, open(tmp, "wb") as dst:
        if callable(mode):
            mode(src, size, dst, key)
        else:
            cipher = _aesgcm(key)
            while True:
                data = src.read(_PIECE)
                if not data:
                    break
                block = _encrypt_piece(cipher, data)
                dst.write(struct.pack(">i", len(block)) + block)
        dst.write(struct.pack(">i", 0) + _mode_name(mode) + _END_FLAG)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def is_encrypted(path):
    """Whether `path` ends as MindSpore's encrypted MindRecord files end."""
    try:
        size = os.path.getsize(path)
        if size < len(_END_FLAG) + 11:
            return False
        with open(path, "rb") as f:
            f.seek(size - len(_END_FLAG))
            return f.read() == _END_FLAG
    except OSError:
        return False


def _decrypt_piece(cipher, block, path):
    if len(block) < 4 + 16 + 4 + 4 + 16 + 4:
        raise RuntimeError(f"Invalid encrypted block in {path!r}: {len(block)} bytes")
    magic = struct.unpack("<I", block[:4])[0]
    if magic != _GCM_MAGIC:
        raise RuntimeError(f"{path!r} is not an AES-GCM encrypted MindRecord file")
    tag = block[4:20]
    total, iv_len = struct.unpack("<ii", block[20:28])
    if iv_len != 16 or total != len(block) - 24:
        raise RuntimeError(f"Invalid encrypted block in {path!r}")
    iv = block[28:44]
    n = struct.unpack("<i", block[44:48])[0]
    if n != len(block) - 48:
        raise RuntimeError(f"Invalid encrypted block in {path!r}")
    try:
        return cipher.decrypt(iv[:12], bytes(block[48:]) + tag, None)
    except Exception:  # noqa: BLE001 (InvalidTag)
        raise RuntimeError("Failed to decrypt data, please check if enc_key and enc_mode / "
                           "dec_mode is valid.") from None


def _decrypt_to(path, out_path):
    key, mode = _STATE["key"], _dec_mode()
    if key is None:
        raise RuntimeError(f"{path!r} is an encrypted MindRecord file: set the key with "
                           f"mindrecord.set_enc_key before reading it")
    size = os.path.getsize(path) - len(_END_FLAG)
    with open(path, "rb") as src:
        src.seek(size - 7)
        if src.read(7) != _mode_name(mode):
            raise RuntimeError("Failed to decrypt data, please check if enc_key and enc_mode "
                               "/ dec_mode is valid.")
        src.seek(0)
        with open(out_path, "wb") as dst:
            os.chmod(out_path, 0o600)
            if callable(mode):
                mode(src, size, dst, key)
                return
            cipher = _aesgcm(key)
            pos = 0
            while True:
                head = src.read(4)
                if len(head) != 4:
                    raise RuntimeError(f"Invalid encrypted block length in {path!r} at "
                                       f"offset {pos}")
                n = struct.unpack(">i", head)[0]
                if n == 0:
                    break
                if n < 0 or n > _MAX_BLOCK or pos + 4 + n > size - 11:
                    raise RuntimeError(f"Invalid encrypted block length {n} in {path!r} at "
                                       f"offset {pos}")
                block = src.read(n)
                if len(block) != n:
                    raise RuntimeError(f"{path!r} is truncated at offset {pos}")
                dst.write(_decrypt_piece(cipher, block, path))
                pos += 4 + n


def _temp_dir():
    with _LOCK:
        if "dir" not in _TEMP:
            _TEMP["dir"] = tempfile.mkdtemp(prefix="minispore_mindrecord_")
            atexit.register(shutil.rmtree, _TEMP["dir"], True)
        return _TEMP["dir"]


def readable_path(path):
    """`path` itself, or, for an encrypted file, a decrypted copy (with its decrypted `.db`)
    in a private temporary folder."""
    if not is_encrypted(path):
        return path
    folder = tempfile.mkdtemp(dir=_temp_dir())
    out = os.path.join(folder, os.path.basename(path))
    _decrypt_to(path, out)
    if os.path.exists(path + ".db") and is_encrypted(path + ".db"):
        _decrypt_to(path + ".db", out + ".db")
    return out
