"""Footnote markers at the end of header labels: what counts as one, and what stays."""

from __future__ import annotations

import pytest

from agent.frame import Attr
from agent.text import label_tokens, path_tokens
from ingest.labels import matching_label, strip_footnote_markers


@pytest.mark.parametrize(("label", "stripped"), [
    ("Total area[2]", "Total area"),
    ("Total area [2][13]", "Total area"),
    ("Defence(1)", "Defence"),
    ("Defence (12)", "Defence"),
    ("Revenue*", "Revenue"),
    ("Revenue **", "Revenue"),
    ("Profit\u2020", "Profit"),
    ("Loss\u2021", "Loss"),
    ("Tax\u00a7", "Tax"),
    ("Land area[note 3]", "Land area"),
    ("Deaths [nb 1]", "Deaths"),
    ("Name[a]", "Name"),
    ("Name [iv]", "Name"),
    ("Texas[b]*", "Texas"),
    # A number or bracket that is part of the name stays.
    ("Q1", "Q1"),
    ("Region 3", "Region 3"),
    ("2024", "2024"),
    ("Population (2020)", "Population (2020)"),
    ("Distance [km]", "Distance [km]"),
    ("Revenue ($m)", "Revenue ($m)"),
    ("Share [%]", "Share [%]"),
    ("Total area[2] 2020", "Total area[2] 2020"),  # only at the end
    # A label that is only a marker is left as it is ("(1)" numbers a column).
    ("(1)", "(1)"),
    ("\u2021", "\u2021"),
    ("[a]", "[a]"),
    ("", ""),
])
def test_footnote_markers_at_the_end_of_a_label(label, stripped):
    assert strip_footnote_markers(label) == stripped


def test_header_words_for_matching_leave_the_markers_out():
    assert label_tokens("Total area[2]") == ["total", "area"]
    assert path_tokens(["Units*", "Q1"]) == ["unit", "q1"]  # stemmed, as question words are
    attr = Attr("Total area[2]", ("Area[a]", "Total area[2]"), "data", 0, 2)
    assert attr.tokens == {"area", "total"}
    assert attr.label == "Area[a] > Total area[2]"  # shown as the source shows it


@pytest.mark.parametrize(("label", "matched"), [
    ("7. Health[2]", "Health"), ("10) Housing", "Housing"), ("(a) Staff costs", "Staff costs"),
    ("iv. Other", "Other"), ("A) Revenue", "Revenue"),
    # a number that is part of the name, or no list number at all, stays
    ("1.5 litres", "1.5 litres"), ("2024 budget", "2024 budget"), ("3.2 Interest", "3.2 Interest"),
    ("No. of staff", "No. of staff"), ("U.S. states", "U.S. states"), ("Q1 2024", "Q1 2024"),
])
def test_a_leading_list_number_is_not_a_word_to_match(label, matched):
    assert matching_label(label) == matched
