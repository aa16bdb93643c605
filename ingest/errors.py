"""Typed errors for reading files. Each message names the file and says what to do next.

Front ends (the CLI, the Streamlit app) turn these into messages in exactly one place each; the
text of `str(error)` is what a user reads.
"""

from __future__ import annotations


class IngestError(Exception):
    """A file could not be read. `source` is its name, `advice` what the user can do."""

    def __init__(self, source: str, problem: str, advice: str = "") -> None:
        self.source = source
        self.problem = problem
        self.advice = advice
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.source}: {self.problem}"
        return f"{text} {self.advice}".strip() if self.advice else text


class UnsupportedFormat(IngestError):
    """The file's format has no reader."""


class LegacyFormat(UnsupportedFormat):
    """An old or foreign spreadsheet format (.xls, .ods) that should be saved as .xlsx."""


class EmptyFile(IngestError):
    """The file has no bytes, or no table in it."""


class CorruptFile(IngestError):
    """The file is damaged or is not what its name says (a truncated or non-zip .xlsx)."""


class BinaryContent(CorruptFile):
    """A text format (CSV, HTML, Markdown) whose bytes are binary."""


class LimitExceeded(IngestError):
    """The file is larger or deeper than a configured limit allows."""


class FileTooLarge(LimitExceeded):
    """The file's size is over the limit."""


class DecompressedTooLarge(LimitExceeded):
    """An .xlsx whose XML expands past the limit (a zip bomb, or a huge sheet)."""


class TooManyCells(LimitExceeded):
    """More cells than the per-file limit."""


class TooManyRows(LimitExceeded):
    """A CSV file with more rows than the row limit."""


class NotEnoughDisk(LimitExceeded):
    """Storing the file would need more disk space than is free where the workspace lives."""


class MergeTooLarge(LimitExceeded):
    """A merged range whose area is over the limit (e.g. a merge over a whole sheet)."""


class NestingTooDeep(LimitExceeded):
    """HTML nested deeper than the limit."""


class TooManyColumns(LimitExceeded):
    """A sheet or table wider than the column limit (A1 references end at column XFD)."""


class TooManyTables(LimitExceeded):
    """More tables in one file than the per-file limit."""


class IngestInterrupted(IngestError):
    """Reading or storing the file was ended part-way; nothing of it was stored."""


class IngestStopped(IngestInterrupted):
    """The user stopped the upload (Stop in the app, Ctrl-C on the command line)."""

    def __init__(self, source: str) -> None:
        super().__init__(source, "upload stopped; nothing was stored.")


class IngestTimeLimit(IngestInterrupted, LimitExceeded):
    """Reading and storing the file took longer than the ingest time limit."""

    def __init__(self, source: str, limit_s: float) -> None:
        super().__init__(source, f"reading and storing it took longer than the "
                         f"{limit_s:g} s limit; nothing was stored.",
                         "Split the file into smaller ones, or raise "
                         "TABLELENS_MAX_INGEST_SECONDS.")


class OcrUnavailable(IngestError):
    """An image was uploaded, but the tesseract OCR program is not installed."""


class NotAnImage(CorruptFile):
    """A file named as an image whose bytes are not an image (or a damaged one)."""


class ImageTooLarge(LimitExceeded):
    """An image with more pixels than TABLELENS_OCR_MAX_PIXELS allows."""


class NoTableInImage(EmptyFile):
    """An image in which no table (no text in rows and columns) was found."""


class PasswordProtected(IngestError):
    """A pdf or docx that opens only with a password."""


class NotADocument(CorruptFile):
    """A .docx that is some other zip (or no zip at all), a .pdf that is not a PDF."""


class NoTextLayer(IngestError):
    """A pdf of scanned pages: images without a text layer."""
