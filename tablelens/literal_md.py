"""User text (a chat's title, a search for one) as Markdown that Streamlit shows as typed.

Escaping Markdown's syntax (`md_escape`) is not enough for Streamlit: after parsing, its
renderer still turns text into something else. An address becomes a link (GFM autolinks:
"http://", "www.", "name@host.tld"), whatever backslashes surround it; "--", "->", "<-",
">=", "<=" and "~=" become dashes and arrows ("'; DROP TABLE cells; --" read "... cells; —");
":smile:" becomes an emoji, ":streamlit:" a logo, ":material/face:" an icon (and
":material/face", with no colon after it, "material_face"). Those rules read one text node at
a time, so each is kept from forming by an empty `:small[]` (Streamlit's own small-text
directive, holding nothing) inside it: it ends one text node and starts the next, and shows
and copies as nothing. A WORD JOINER (U+2060) did this before, and went into every copy of
the text.
"""

from __future__ import annotations

import re

from tablelens.chat_view import md_escape

SEAM = ":small[]"
_FORMED = re.compile(
    r"(?<=[-<>~])(?=[->=])"  # "--", "->", "<-", ">=", "<=", "~=" (and "<->")
    r"|(?<=:)(?=[\w+/-])"  # "http://", any scheme's "://", ":smile:", ":material/face"
    r"|(?<=\bwww)(?=\.)"  # "www.example.org"
    r"|(?<=@)(?=\w)",  # "name@example.org"
    re.IGNORECASE)
_ALSO_ESCAPED = re.compile(r"[&=:]")
"""Beyond `md_escape`: "&" starts an entity ("&lt;" would read "<"), "=" underlines a
heading (a line of "===" under "Q2"), and a directive right after a bare ":" is not read
as one (the seam in "http:" + "//" would show as text)."""


def md_literal(text: str) -> str:
    """Markdown that Streamlit renders as exactly `text`: no link, formatting, entity, dash,
    arrow, emoji or icon made out of it (st.button labels, st.title and st.markdown alike)."""
    return SEAM.join(_ALSO_ESCAPED.sub(lambda m: "\\" + m.group(0), md_escape(piece))
                     for piece in _FORMED.split(str(text)))
