"""Decode the bytes of a text format (HTML, Markdown) to str, refusing binary content.

The order is the one browsers use: a byte-order mark wins, then an encoding the document
declares, then UTF-8, then Windows-1252 (which maps every byte, so decoding never fails).
"""

from __future__ import annotations

import codecs
import re
from typing import BinaryIO

from ingest.errors import BinaryContent

_BOMS = (
    # UTF-32 before UTF-16: the UTF-32-LE mark starts with the UTF-16-LE one.
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# The HTML standard reads these labels as Windows-1252 (pages labelled Latin-1 use its
# 0x80-0x9F characters, such as curly quotes and the euro sign).
_AS_CP1252 = {"ascii", "iso8859-1"}

_SNIFF_CHARS = 65536
"""How much of the decoded text is inspected for binary content."""

_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
"""C0 control characters that do not occur in text (tab, newlines, form feed and ESC do)."""

_MAX_CONTROL_SHARE = 0.05


def decode_text(data: bytes, *, name: str, kind: str, declared: str | None = None) -> str:
    """Return `data` decoded, or raise `BinaryContent` if it is not text.

    `kind` names the format in the message ("HTML"); `declared` is an encoding label the
    document itself gives (an HTML <meta charset>), used when there is no byte-order mark.
    """
    text = _decode(data, declared)
    _refuse_binary(text, name=name, kind=kind)
    return text


def _decode(data: bytes, declared: str | None) -> str:
    """Decode by byte-order mark, then the declared encoding, then UTF-8, then Windows-1252."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    encoding = _usable_encoding(declared)
    if encoding is not None and encoding != "utf-8":
        try:
            # A declaration is trusted even with a few bad bytes, as browsers do.
            return data.decode(encoding, errors="replace")
        except LookupError:  # a codec that is not a text encoding (e.g. "base64")
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _usable_encoding(label: str | None) -> str | None:
    """Return Python's codec name for a declared label, or None when it cannot be honoured."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip()).name
    except LookupError:
        return None
    if name.startswith(("utf-16", "utf-32")):
        # Bytes that could be read far enough to find the label are not UTF-16: the HTML
        # standard reads such documents as UTF-8.
        return "utf-8"
    return "cp1252" if name in _AS_CP1252 else name


def _refuse_binary(text: str, *, name: str, kind: str) -> None:
    """Raise `BinaryContent` when the start of the text holds NUL or many control bytes."""
    sample = text[:_SNIFF_CHARS]
    if "\x00" in sample or len(_CONTROL.findall(sample)) > _MAX_CONTROL_SHARE * len(sample):
        raise BinaryContent(
            name, f"the file holds binary data, not {kind} text.",
            f"Check that the file really is {kind}; if it is a spreadsheet or another format, "
            "upload it with its proper file ending (for example .xlsx).")


HEAD_BYTES = 64 * 1024
"""How much of a file `head_text` reads to tell what it holds."""


def head_text(stream: BinaryIO, *, name: str) -> str | None:
    """The decoded text of a file's first `HEAD_BYTES`, without a last line the cut left
    partial; None when the bytes are not text. The stream is left at its start."""
    sample = stream.read(HEAD_BYTES)
    stream.seek(0)
    try:
        text = decode_text(sample, name=name, kind="text")
    except BinaryContent:
        return None
    if len(sample) == HEAD_BYTES and "\n" in text:
        text = text[:text.rindex("\n")]
    return text


def looks_like_html(text: str) -> bool:
    """Whether a text is a web page: it opens as one, or holds a <table>."""
    folded = text.casefold()
    return "<table" in folded or folded.lstrip("\ufeff \t\r\n").startswith(("<html",
                                                                              "<!doctype"))
