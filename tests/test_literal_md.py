"""User text as Markdown Streamlit shows as typed (`tablelens/literal_md.py`): every rule of
Streamlit's renderer that would change the text finds nothing to act on, and what is left
reads as the text, with nothing added to it (tests/test_browser_share.py checks what a
browser shows and copies)."""

from __future__ import annotations

import re

import pytest

from tablelens.literal_md import SEAM, md_literal

# What Streamlit 1.67's Markdown (StreamlitMarkdown.js) turns into something else, as it
# finds it in each parsed text node: GFM autolinks, its own dash and arrow rules, emoji,
# its logo and icons.
RENDERER_RULES = [
    re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE),
    re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)"),
    re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
    re.compile(r":\+1:|:-1:|:[\w-]+:"),
    re.compile(r":streamlit:"),
    re.compile(r":material[/_]\w+:"),
]
# What it rewrites in the Markdown source before parsing it.
SOURCE_RULES = [re.compile(":material/")]


def text_nodes(markdown: str) -> list[str]:
    """The text nodes of a paragraph of this Markdown: one between seams, each escape
    resolved."""
    return [re.sub(r"\\(.)", r"\1", part) for part in markdown.split(SEAM)]


@pytest.mark.parametrize("text", [
    "'; DROP TABLE cells; --",
    "<b>Q2</b> **ops** review `x` [link](http://evil.example) & more",
    "see www.example.org or mail ops@example.org",
    "a -> b <- c <-> d >= 1 <= 2 ~= 3",
    ":smile: :material/face: :+1: :streamlit: x::smile:",
    "see x:material/face, no colon after it",
    "&lt; &amp; &#45;",
    "1. Health",
    "Q2\n===",
    "$5 and $6",
])
def test_user_text_is_left_nothing_to_render_and_reads_as_typed(text):
    markdown = md_literal(text)
    nodes = text_nodes(markdown)
    for rule in RENDERER_RULES:
        assert not any(rule.search(node) for node in nodes), (rule.pattern, nodes)
    for rule in SOURCE_RULES:
        assert not rule.search(markdown), (rule.pattern, markdown)
    assert "".join(nodes) == text  # nothing added: no joiner, no space
    # Markdown's own syntax is escaped, the seams aside: no character that starts a construct
    # stands bare (a bare ":" would also keep the seam after it from being read as one).
    for part in markdown.split(SEAM):
        assert not re.search(r"(?<!\\)[*_`\[\]<>&=$#:]", part), markdown


def test_text_with_nothing_to_keep_from_forming_has_no_seam():
    assert md_literal("What was the total rent in Q2?") == "What was the total rent in Q2?"
