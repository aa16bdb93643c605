"""Open what a reader is given (a path or a file-like object) as a seekable binary stream."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import BinaryIO

Source = str | os.PathLike[str] | BinaryIO


def source_name(src: Source, name: str | None = None) -> str:
    """Return the name to show for a source: the given name, the path's name, or "<upload>"."""
    if name:
        return name
    if isinstance(src, (str, os.PathLike)):
        return Path(src).name
    return Path(getattr(src, "name", "") or "<upload>").name


def open_binary(src: Source) -> BinaryIO:
    """Return a seekable binary stream positioned at 0 (the caller closes paths it opened)."""
    if isinstance(src, (str, os.PathLike)):
        return open(src, "rb")  # noqa: SIM115 - the caller owns it
    if not src.seekable():
        return io.BytesIO(src.read())
    src.seek(0)
    return src


def byte_size(stream: BinaryIO) -> int:
    """Return the stream's length in bytes without reading it."""
    pos = stream.tell()
    size = stream.seek(0, io.SEEK_END)
    stream.seek(pos)
    return size
