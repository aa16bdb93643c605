"""User text as Markdown Streamlit shows as typed (`tablelens/literal_md.py`): every rule of
Streamlit's renderer that would change the text finds nothing to act on, and what is left
reads as the text."""

from __future__ import annotations

import re

import pytest

from tablelens.literal_md import JOINER, md_literal

# What Streamlit 1.67's Markdown (StreamlitMarkdown.js) turns into something else, as it
# finds it in the parsed text: GFM autolinks, its own dash and arrow rules, emoji and icons.
RENDERER_RULES = [
    re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE),
    re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)"),
    re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
    re.compile(r":\+1:|:-1:|:[\w-]+:"),
    re.compile(r":material[/_]\w+:"),
]


def parsed(markdown: str) -> str:
    """The text of a paragraph of escaped Markdown: each escape resolved."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("text", [
    "'; DROP TABLE cells; --",
    "<b>Q2</b> **ops** review `x` [link](http://evil.example) & more",
    "see www.example.org or mail ops@example.org",
    "a -> b <- c <-> d >= 1 <= 2 ~= 3",
    ":smile: :material/face: :+1:",
    "&lt; &amp; &#45;",
    "1. Health",
    "Q2\n===",
    "$5 and $6",
])
def test_user_text_is_left_nothing_to_render_and_reads_as_typed(text):
    markdown = md_literal(text)
    seen = parsed(markdown)
    for rule in RENDERER_RULES:
        assert not rule.search(seen), (rule.pattern, seen)
    assert seen.replace(JOINER, "") == text
    # Markdown's own syntax is escaped: no character that starts a construct stands bare.
    assert not re.search(r"(?<!\\)[*_`\[\]<>&=$#]", markdown), markdown
