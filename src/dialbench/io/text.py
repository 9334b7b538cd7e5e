"""Decoding input bytes as UTF-8, with the position of any bad byte."""

from __future__ import annotations

from pathlib import Path

from dialbench.errors import InputError


def decode_utf8(data: bytes, file: str | Path, first_line: int = 1) -> str:
    """Decode UTF-8 (dropping a byte-order mark); a bad byte is reported by line and column."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = first_line + data.count(b"\n", 0, bad.start)
        column = bad.start - (data.rfind(b"\n", 0, bad.start) + 1) + 1
        byte = data[bad.start : bad.start + 1].hex()
        raise InputError(
            file, f"not valid UTF-8 (byte 0x{byte} at column {column}); save it as UTF-8", line=line
        ) from None
