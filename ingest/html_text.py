"""Read the text of an HTML page outside its tables into paragraphs (the tables go through
`ingest/html_reader.py` as before).

Headings (h1-h6) set the section; every other block (p, li, div, blockquote, dd, pre, ...)
with text of its own is a paragraph. Scripts, styles, navigation chrome and tables are left
out.
"""

from __future__ import annotations

from typing import BinaryIO

import lxml.html

from ingest import cancel
from ingest.grid import Progress
from ingest.html_reader import _declared_charset, read_html
from ingest.limits import Limits
from ingest.text_chunks import Document, ParagraphList
from ingest.text_decode import decode_text

_SKIP = {"table", "script", "style", "noscript", "template", "head", "nav", "svg", "select",
         "button", "form", "iframe", "object"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = {"p", "li", "div", "blockquote", "dd", "dt", "pre", "section", "article", "main",
           "header", "footer", "aside", "figcaption", "address", "body", "td", "th", "ul",
           "ol", "dl", "figure", "details", "summary", "center"} | _HEADINGS


def read_html_document(stream: BinaryIO, *, name: str, limits: Limits,
                       progress: Progress) -> Document:
    """Read an HTML page's tables into grids and the text outside them into paragraphs."""
    grids = read_html(stream, name=name, limits=limits,
                      progress=lambda f, stage: progress(0.8 * f, stage))
    stream.seek(0)
    data = stream.read()
    text = decode_text(data, name=name, kind="HTML", declared=_declared_charset(data))
    progress(0.8, "reading HTML text")
    return Document(grids, html_paragraphs(text).items)


def html_paragraphs(text: str) -> ParagraphList:
    """The headings and text blocks of a page, outside tables, in document order."""
    out = ParagraphList()
    if not text.strip():
        return out
    try:
        root = lxml.html.document_fromstring(text)
    except (ValueError, lxml.etree.ParserError):
        return out
    parts: list[str] = []

    def flush(heading: bool = False) -> None:
        if parts:
            out.add("".join(parts), heading=heading)
            parts.clear()

    def walk(el) -> None:  # noqa: ANN001 - an lxml element
        cancel.check()
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in _SKIP:
            flush()
        elif tag in _HEADINGS:
            flush()
            parts.append(el.text_content())
            flush(heading=True)
        else:
            block = tag in _BLOCKS
            if block:
                flush()
            if tag == "br":
                parts.append(" ")
            if el.text and tag:
                parts.append(el.text)
            for child in el:
                walk(child)
            if block:
                flush()
        if el.tail:
            parts.append(el.tail)

    body = root.find("body")
    walk(body if body is not None else root)
    flush()
    return out
