"""Read a CSV or TSV file into one streamed grid.

A CSV file can hold tens of millions of cells, so the reader never keeps them: one validating
pass with the `csv` module counts rows, columns and filled cells (and enforces the row limit),
and the grid's `rows_source` (cells) or `text_rows` (plain lists of field texts) re-reads the
file whenever its rows are needed. The grid keeps the file's bytes (for in-memory uploads) or
its path, never the caller's stream, which the caller closes after reading. A file past
`Limits.flat_csv_cells` is stored by streaming `text_rows` (storage/flat_table.py); a smaller
one is materialised, every filled cell in memory, to find its tables, under the cell limit.

Values stay text: a CSV has no types, and typing numbers is done after reading.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from ingest import cancel
from ingest.errors import BinaryContent, CorruptFile, EmptyFile, TooManyCells, TooManyRows
from ingest.grid import Cell, Grid, Progress
from ingest.limits import Limits
from ingest.source import byte_size
from ingest.values import decimal_comma_number

_Opener = Callable[[], BinaryIO]
"""Re-opens the file's bytes from the start."""

_SAMPLE_BYTES = 64 * 1024
"""How much of the file decides the encoding and whether it is text at all."""

_SNIFF_CHARS = 8 * 1024
"""How much text `csv.Sniffer` sees: its quote detection is quadratic in the text's length."""

_DELIMITERS = ",;\t|"

_MAX_FIELD_CHARS = 64 * 1024 * 1024
"""Longest field accepted; the `csv` module's default (128 KiB) refuses real files."""

_ROWS_PER_CHECK = 4096
"""Rows read between two checks of the cell limit, of Stop and the time limit, and two
progress reports: a few milliseconds of reading, and few enough calls not to count."""

_BOMS = (
    # UTF-32 before UTF-16: the UTF-32-LE mark starts with the UTF-16-LE one. The "utf-16" and
    # "utf-32" codecs read the mark themselves to learn the byte order.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
"""Control characters that text does not contain (tab, newlines, form feed and ESC do occur).

Replacement characters do not count: one undecodable byte at the end of a tiny file is damage,
not binary content, and is reported in the grid's warnings.
"""

_MAX_CONTROL_SHARE = 0.05

_SIGNATURES = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive, such as an Excel .xlsx workbook"),
    (b"\x1f\x8b", "a gzip archive"),
)
"""Leading bytes of binary formats that are often renamed to .csv, to name them in messages."""


@dataclass(frozen=True, slots=True)
class _Decoding:
    """How to decode the file: a codec, its error handling, and what to try if bytes fail."""

    encoding: str
    errors: str = "strict"
    fallback: str | None = None
    """Codec to switch to when bytes after the sample do not decode (None: replace them)."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """What the validating pass counted."""

    n_rows: int
    n_cols: int
    filled: int


def read_csv(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> list[Grid]:
    """Read a CSV or TSV file into one streamed grid whose cells are the file's filled fields.

    Raises `BinaryContent` for binary files, `EmptyFile` when no field holds text,
    `TooManyRows` over the row limit, `TooManyCells` over the cell limit when the file is small
    enough to be analysed whole (`Limits.flat_csv_cells`), and `CorruptFile` when the CSV
    cannot be parsed.
    """
    _allow_long_fields()
    size = byte_size(stream)
    stream.seek(0)
    sample = stream.read(_SAMPLE_BYTES)
    stream.seek(0)
    complete = size <= _SAMPLE_BYTES
    decoding = _detect_decoding(sample, complete=complete)
    if decoding is None:
        raise _binary_error(name, sample)
    text = _decode_sample(sample, decoding.encoding, complete)
    if _looks_binary(text):
        raise _binary_error(name, sample)
    delimiter = "\t" if Path(name).suffix.lower() == ".tsv" else _sniff_delimiter(text)
    opener = _opener(stream)
    shape, decoding, warnings = _validate(opener, decoding, delimiter, size, name, limits,
                                          progress)
    decimal_comma = delimiter == ";" and _writes_decimal_commas(text, delimiter)
    if decimal_comma:
        warnings = [*warnings, "Numbers are read with a decimal comma (\"412,5\" is 412.5), as "
                    "the file separates its fields with semicolons."]
    rows_source = partial(_rows, opener, decoding.encoding, delimiter, decimal_comma)
    if shape.filled == 0 or not _has_filled_cell(rows_source()):
        raise EmptyFile(name, "the file has no filled cell (only separators, spaces or blank "
                        "lines).", "Upload a CSV file with at least one value in it.")
    if limits.max_cells < shape.filled <= limits.flat_csv_cells:
        raise TooManyCells(name, f"the file has more than {limits.max_cells:,} filled cells.",
                           "Split it, or raise TABLELENS_MAX_CELLS (every filled cell is held "
                           "in memory while the file's tables are found: about 1 GB per "
                           "million).")
    return [Grid(name, Path(name).stem, 0, shape.n_rows, shape.n_cols, "csv",
                 warnings=warnings, rows_source=rows_source, streamed_cell_count=shape.filled,
                 text_rows=partial(_text_rows, opener, decoding.encoding, delimiter))]


def _detect_decoding(sample: bytes, *, complete: bool) -> _Decoding | None:
    """Return how to decode a file from its first bytes, or None when the bytes are binary.

    Order: a byte-order mark, then NUL bytes (UTF-16/32 without a mark, or binary), then UTF-8,
    then charset-normalizer's guess, then Windows-1252 or Latin-1. `complete` says whether the
    sample is the whole file (otherwise a character cut at its end is not an error).
    """
    for bom, encoding in _BOMS:
        if sample.startswith(bom):
            return _Decoding(encoding)
    if b"\x00" in sample:
        return _wide_decoding(sample)
    if _decodes(sample, "utf-8", complete):
        # Nothing in an ASCII sample shows the encoding: if non-ASCII bytes further on are
        # not UTF-8, the file is most likely a Windows export.
        return _Decoding("utf-8", fallback="cp1252" if sample.isascii() else None)
    return _Decoding(_legacy_encoding(sample))


def _sniff_delimiter(text: str) -> str:
    """Return the delimiter of a CSV from its first characters: , ; tab or | (default ,)."""
    head = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS and "\n" in head:
        head = head[:head.rindex("\n")]  # a cut line would look like a ragged row
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:  # one column, or no delimiter used consistently
        return ","


def _allow_long_fields() -> None:
    """Raise the `csv` module's field size limit (process-wide) to `_MAX_FIELD_CHARS`."""
    if csv.field_size_limit() < _MAX_FIELD_CHARS:
        csv.field_size_limit(_MAX_FIELD_CHARS)


def _wide_decoding(sample: bytes) -> _Decoding | None:
    """Return UTF-16 or UTF-32 for a sample with NUL bytes when charset-normalizer sees one."""
    import charset_normalizer  # here: 4 MB of every upload's peak that most files never need

    best = charset_normalizer.from_bytes(sample).best()
    if best is not None and best.encoding.startswith(("utf_16", "utf_32")):
        return _Decoding(best.encoding)
    return None


def _decodes(sample: bytes, encoding: str, complete: bool) -> bool:
    """Return whether the sample decodes strictly (a cut last character is fine unless complete)."""
    try:
        codecs.getincrementaldecoder(encoding)().decode(sample, final=complete)
    except UnicodeDecodeError:
        return False
    return True


def _legacy_encoding(sample: bytes) -> str:
    """Return the 8-bit or East Asian encoding of a sample that is not UTF-8.

    charset-normalizer often names a code page that decodes Western text the same as
    Windows-1252 but differs on other letters (cp1250 turns "ñ" into "ń"), or a DOS code page
    for text with curly quotes or "€": Windows-1252 wins whenever it reads the sample as
    coherently as the guess does.
    """
    import charset_normalizer  # here: 4 MB of every upload's peak that most files never need

    best = charset_normalizer.from_bytes(sample).best()
    if best is not None:
        western = charset_normalizer.from_bytes(sample, cp_isolation=["cp1252"]).best()
        if western is None or western.coherence < best.coherence:
            return best.encoding
    # cp1252 leaves five bytes undefined; Latin-1 decodes every byte.
    return "cp1252" if _decodes(sample, "cp1252", True) else "latin-1"


def _decode_sample(sample: bytes, encoding: str, complete: bool) -> str:
    """Return the sample as text (a character cut at its end is dropped unless complete)."""
    return codecs.getincrementaldecoder(encoding)(errors="replace").decode(sample, final=complete)


def _looks_binary(text: str) -> bool:
    """Return whether decoded text holds NUL or a high share of control characters."""
    return "\x00" in text or len(_CONTROL.findall(text)) > _MAX_CONTROL_SHARE * len(text)


def _binary_error(name: str, sample: bytes) -> BinaryContent:
    """Return the error for a binary file, naming its real format when the first bytes show it."""
    what = next((f" (it is {kind})" for magic, kind in _SIGNATURES if sample.startswith(magic)),
                " (it contains binary data)")
    return BinaryContent(name, f"this does not look like a text CSV file{what}.",
                         "If it is a spreadsheet, upload it with its real file ending (such as "
                         ".xlsx); otherwise export the table as CSV (UTF-8) and upload that.")


def _opener(stream: BinaryIO) -> _Opener:
    """Return a function that re-opens the stream's bytes after the caller has closed it.

    In-memory uploads keep their bytes; a file opened by path keeps the path; any other stream
    is read into memory once.
    """
    if isinstance(stream, io.BytesIO):
        return partial(io.BytesIO, stream.getvalue())
    path = getattr(stream, "name", None)
    # Only plain files: a temporary file's wrapper has a path that vanishes when it is closed.
    if (isinstance(stream, io.BufferedReader | io.FileIO) and isinstance(path, str)
            and os.path.isfile(path)):
        return partial(open, os.path.abspath(path), "rb")
    stream.seek(0)
    return partial(io.BytesIO, stream.read())


def _validate(opener: _Opener, decoding: _Decoding, delimiter: str, size: int, name: str,
              limits: Limits, progress: Progress) -> tuple[_Shape, _Decoding, list[str]]:
    """Count the file's shape, switching the decoding when bytes past the sample do not decode.

    Returns the shape, the decoding that read the whole file, and warnings about the switch.
    """
    warnings: list[str] = []
    while True:
        try:
            shape = _scan(opener, decoding, delimiter, size, name, limits, progress)
        except UnicodeDecodeError:
            decoding, warning = _after_decode_error(decoding)
            warnings.append(warning)
        else:
            return shape, decoding, warnings


def _after_decode_error(decoding: _Decoding) -> tuple[_Decoding, str]:
    """Return the next decoding to try after `decoding` failed, and a warning saying so."""
    if decoding.fallback is not None:
        return _Decoding(decoding.fallback), (
            f"The start of the file is plain ASCII but later bytes are not valid "
            f"{_label(decoding.encoding)}; the file was read as {_label(decoding.fallback)}.")
    return _Decoding(decoding.encoding, errors="replace"), (
        f"Some bytes are not valid {_label(decoding.encoding)} and were replaced by \ufffd.")


def _label(encoding: str) -> str:
    """Return an encoding's name as people know it ("UTF-8", "Windows-1252")."""
    name = codecs.lookup(encoding).name.removesuffix("-sig")
    return {"cp1252": "Windows-1252", "iso8859-1": "Latin-1"}.get(name, name.upper())


def _scan(opener: _Opener, decoding: _Decoding, delimiter: str, size: int, name: str,
          limits: Limits, progress: Progress) -> _Shape:
    """Read every record once: count rows, the widest row and the non-empty fields.

    This pass is timed against a bare `csv.reader` loop, so the per-row work is a few C calls:
    fields are counted as filled when they are not "" (a field of only spaces counts here but
    is dropped when cells are read; telling them apart would cost a call per field).
    """
    n_rows = n_cols = filled = 0
    with opener() as raw, io.TextIOWrapper(raw, encoding=decoding.encoding,
                                           errors=decoding.errors, newline="") as text:
        reader = csv.reader(text, delimiter=delimiter)
        numbered = enumerate(reader, 1)
        try:
            while True:
                before = n_rows
                # The last number seen is the row count: cheaper than adding 1 per row.
                for n_rows, row in islice(numbered, _ROWS_PER_CHECK):  # noqa: B007
                    width = len(row)
                    if width > n_cols:
                        n_cols = width
                    filled += width - row.count("")
                cancel.check()
                if n_rows > limits.max_csv_rows:
                    raise TooManyRows(name, f"the file has more than {limits.max_csv_rows:,} "
                                      "rows.", "Split it into smaller files, or raise "
                                      "TABLELENS_MAX_CSV_ROWS.")
                if n_rows - before < _ROWS_PER_CHECK:
                    return _Shape(n_rows, n_cols, filled)
                progress(min(raw.tell() / max(size, 1), 1.0), "reading rows")
        except csv.Error as exc:
            raise CorruptFile(name, f"the CSV cannot be parsed near line {reader.line_num} "
                              f"({exc}).", "A quote that is never closed makes the rest of the "
                              "file one field: fix the quoting, or export the file again as "
                              "CSV.") from None


_UNAMBIGUOUS_DECIMAL = re.compile(r"\s*-?(?:\d{1,3}(?:\.\d{3})+,\d+|\d+,(?:\d{1,2}|\d{4,}))\s*")
"""A decimal comma that no thousands separator could be: not three digits after it."""


def _writes_decimal_commas(text: str, delimiter: str) -> bool:
    """Whether a semicolon-separated file writes its numbers with decimal commas: some field
    of the sample is a number whose comma cannot group thousands ("98,40", "€ 23,56",
    "12,5 %"), and no field is a number with a decimal point ("98.40")."""
    fields = [_SIGNS.sub("", f) for line in text.splitlines()[:200]
              for f in line.split(delimiter)]
    return any(_UNAMBIGUOUS_DECIMAL.fullmatch(f) for f in fields) and not any(
        re.fullmatch(r"\s*-?\d+\.\d{1,2}\s*", f) for f in fields)


_SIGNS = re.compile(r"^\s*(?:[€$£]|EUR|USD|GBP|CHF)\s?|\s?(?:%|€|EUR|USD|GBP|CHF)\s*$")
"""A currency or percent sign around a number ("€ 23,56", "12,5 %")."""


def _cell(r: int, c: int, text: str, decimal_comma: bool) -> Cell:
    """A CSV field as a cell; with decimal commas, a number field holds its number, shown
    as written (with its sign: "€ 66,54" is 66.54 euros)."""
    if decimal_comma and (number := decimal_comma_number(text)) is not None:
        return Cell(r, c, number, text)
    return Cell(r, c, text, text)


def _rows(opener: _Opener, encoding: str, delimiter: str, decimal_comma: bool = False
          ) -> Generator[list[Cell], None, None]:
    """Re-read the file and yield, per row with any, its cells whose text is not blank."""
    _allow_long_fields()
    # Bytes that did not decode were found by the validating pass and noted in the warnings.
    with io.TextIOWrapper(opener(), encoding=encoding, errors="replace", newline="") as text:
        for r, row in enumerate(csv.reader(text, delimiter=delimiter), 1):
            if not r & 1023:
                cancel.check()
            cells = [_cell(r, c, value, decimal_comma) for c, value in enumerate(row, 1)
                     if value.strip()]
            if cells:
                yield cells


def _text_rows(opener: _Opener, encoding: str, delimiter: str
               ) -> Generator[list[str], None, None]:
    """Re-read the file and yield every record as the list of its field texts (no `Cell`
    objects: what a flat table is streamed from). Stop is checked every 1,024 records."""
    _allow_long_fields()
    with io.TextIOWrapper(opener(), encoding=encoding, errors="replace", newline="") as text:
        for r, row in enumerate(csv.reader(text, delimiter=delimiter), 1):
            if not r & 1023:
                cancel.check()
            yield row


def _has_filled_cell(rows: Generator[list[Cell], None, None]) -> bool:
    """Return whether the rows hold a cell with text, reading only up to the first one."""
    try:
        return next(rows, None) is not None
    finally:
        rows.close()  # closes the re-opened file now rather than when collected
