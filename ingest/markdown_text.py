"""Read the prose of a Markdown document into paragraphs (its pipe tables go through
`ingest/markdown_reader.py` as before).

Headings set the section of what follows; paragraphs, list items and block quotes are
paragraphs; code blocks and tables are left out.
"""

from __future__ import annotations

from typing import BinaryIO

from ingest import cancel
from ingest.grid import Progress
from ingest.limits import Limits
from ingest.markdown_reader import _parser, read_markdown
from ingest.text_chunks import Document, ParagraphList
from ingest.text_decode import decode_text


def read_markdown_document(stream: BinaryIO, *, name: str, limits: Limits,
                           progress: Progress) -> Document:
    """Read a Markdown document's tables into grids and its prose into paragraphs."""
    grids = read_markdown(stream, name=name, limits=limits,
                          progress=lambda f, stage: progress(0.8 * f, stage))
    stream.seek(0)
    text = decode_text(stream.read(), name=name, kind="Markdown")
    progress(0.8, "reading Markdown text")
    return Document(grids, markdown_paragraphs(text).items)


def markdown_paragraphs(text: str) -> ParagraphList:
    """The headings and paragraphs of Markdown text, outside tables, in document order."""
    out = ParagraphList()
    depth_table = 0
    heading = False
    for n, token in enumerate(_parser().parse(text)):
        if not n & 4095:
            cancel.check()
        if token.type == "table_open":
            depth_table += 1
        elif token.type == "table_close":
            depth_table -= 1
        elif token.type == "heading_open":
            heading = True
        elif token.type == "heading_close":
            heading = False
        elif token.type == "inline" and not depth_table:
            out.add(_plain(token), heading=heading)
    return out


def _plain(token) -> str:  # noqa: ANN001 - a markdown-it Token
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "image"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)
