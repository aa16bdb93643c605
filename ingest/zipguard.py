"""A zip archive that refuses to expand past a byte limit (zip-bomb guard for .xlsx).

Two checks: the sizes the archive declares are summed before anything is decompressed (zipfile
never returns more than a member's declared size, so this bounds the honest case), and every
member stream counts the bytes it actually hands out, so no code path that reads the archive can
pull more than the limit into memory.
"""

from __future__ import annotations

import io
import zipfile
from typing import BinaryIO

_CHUNK = 1024 * 1024


class ExpansionLimit(Exception):
    """The archive expands past the limit. `declared` is True when its headers said so."""

    def __init__(self, total: int, limit: int, declared: bool) -> None:
        self.total = total
        self.limit = limit
        self.declared = declared
        super().__init__(f"{total:,} bytes > limit {limit:,}")


class GuardedZipFile(zipfile.ZipFile):
    """A read-only ZipFile whose member streams count decompressed bytes against a limit."""

    def __init__(self, file: BinaryIO, limit: int, *, check_declared: bool = True) -> None:
        super().__init__(file, "r")
        self.limit = limit
        self.bytes_read = 0
        if check_declared:
            declared = sum(info.file_size for info in self.infolist())
            if declared > limit:
                raise ExpansionLimit(declared, limit, declared=True)

    def open(self, name, mode="r", pwd=None, *, force_zip64=False):  # type: ignore[override]
        return _CountingStream(self, super().open(name, mode, pwd, force_zip64=force_zip64))

    def count(self, n: int) -> None:
        """Add n decompressed bytes; raise once the total passes the limit."""
        self.bytes_read += n
        if self.bytes_read > self.limit:
            raise ExpansionLimit(self.bytes_read, self.limit, declared=False)


class _CountingStream(io.RawIOBase):
    """Wrap a member stream; reads go through the archive's counter in bounded chunks."""

    def __init__(self, archive: GuardedZipFile, inner: zipfile.ZipExtFile) -> None:
        self._archive = archive
        self._inner = inner

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            # read(-1) would decompress a whole bomb before we could count it: go in chunks.
            parts = []
            while chunk := self.read(_CHUNK):
                parts.append(chunk)
            return b"".join(parts)
        data = self._inner.read(min(size, _CHUNK))
        self._archive.count(len(data))
        return data

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()
