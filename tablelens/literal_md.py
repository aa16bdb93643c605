"""User text (a chat's title, a typed question) as Markdown that Streamlit shows as typed.

Escaping Markdown's syntax (`md_escape`) is not enough for Streamlit: after parsing, its
renderer still turns text into something else. An address becomes a link (GFM autolinks:
"http://", "www.", "name@host.tld"), whatever backslashes surround it; "--", "->", "<-",
">=", "<=" and "~=" become dashes and arrows ("'; DROP TABLE cells; --" read "... cells; —");
":smile:" becomes an emoji and ":material/face:" an icon. Each of those is kept from forming
by a WORD JOINER (U+2060) inside it: it has no width and no glyph, so the text reads exactly
as typed, and unlike a space it is not whitespace to those rules.
"""

from __future__ import annotations

import re

from tablelens.chat_view import md_escape

JOINER = "\u2060"
_FORMED = re.compile(
    r"(?<=[-<>~])(?=[->=])"  # "--", "->", "<-", ">=", "<=", "~=" (and "<->")
    r"|(?<=:)(?=//)"  # "http://", any scheme's "://"
    r"|(?<=\bwww)(?=\.)"  # "www.example.org"
    r"|(?<=@)(?=\w)"  # "name@example.org"
    r"|(?<=:)(?=[\w+/-]+:)",  # ":smile:", ":material/face:"
    re.IGNORECASE)
_ALSO_ESCAPED = re.compile(r"[&=]")
"""Beyond `md_escape`: "&" starts an entity ("&lt;" would read "<") and "=" underlines a
heading (a line of "===" under "Q2")."""


def md_literal(text: str) -> str:
    """Markdown that Streamlit renders as exactly `text`: no link, formatting, entity, dash,
    arrow, emoji or icon made out of it (st.button labels, st.title and st.markdown alike)."""
    escaped = md_escape(_FORMED.sub(JOINER, str(text)))
    return _ALSO_ESCAPED.sub(lambda m: "\\" + m.group(0), escaped)
