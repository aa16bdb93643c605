"""Typed-value extraction from cell text (ingest/values.py)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingest.values import (
    KINDS,
    TypedValue,
    apply_context_scale,
    parse_raw,
    parse_value,
    scale_from_context,
)

M, B = 1e6, 1e9

# (text, kind, number, unit, scale, other fields: date / low / high)
CASES = [
    # plain and grouped numbers
    ("1,234", "number", 1234, None, None, {}),
    ("1 234", "number", 1234, None, None, {}),
    ("1\u2009234", "number", 1234, None, None, {}),  # thin space
    ("1\u00a0234", "number", 1234, None, None, {}),  # no-break space
    ("1\u202f234", "number", 1234, None, None, {}),  # narrow no-break space
    ("1'234.50", "number", 1234.5, None, None, {}),
    ("1 234,5", "number", 1234.5, None, None, {}),
    ("1.234.567,89", "number", 1234567.89, None, None, {}),
    ("1.234,5", "number", 1234.5, None, None, {}),
    ("1.234.567", "number", 1234567, None, None, {}),
    ("1.234", "number", 1.234, None, None, {}),
    ("1,23,456", "number", 123456, None, None, {}),
    ("-12.5", "number", -12.5, None, None, {}),
    ("+3", "number", 3, None, None, {}),
    ("(1,234)", "number", -1234, None, None, {}),
    ("\u22125", "number", -5, None, None, {}),  # minus sign
    ("–5", "number", -5, None, None, {}),  # en dash as minus
    ("1.2e3", "number", 1200.0, None, None, {}),
    (".5", "number", 0.5, None, None, {}),
    ("12.", "number", 12.0, None, None, {}),
    ("５０", "number", 50, None, None, {}),
    ("1,234.50", "number", 1234.5, None, None, {}),
    ("  42  ", "number", 42, None, None, {}),
    ("0", "number", 0, None, None, {}),
    ("1932", "number", 1932, None, None, {}),  # a bare year is a number
    # percent
    ("12.5%", "percent", 12.5, "%", None, {}),
    ("-3 %", "percent", -3, "%", None, {}),
    ("(2.1)%", "percent", -2.1, "%", None, {}),
    ("(2.1%)", "percent", -2.1, "%", None, {}),
    ("12.5 pct", "percent", 12.5, "%", None, {}),
    ("12.5 per cent", "percent", 12.5, "%", None, {}),
    ("12.5％", "percent", 12.5, "%", None, {}),
    ("+3%", "percent", 3, "%", None, {}),
    # currency
    ("$1,234", "currency", 1234, "$", None, {}),
    ("-$5", "currency", -5, "$", None, {}),
    ("$-5", "currency", -5, "$", None, {}),
    ("$(1,234)", "currency", -1234, "$", None, {}),
    ("($1,234)", "currency", -1234, "$", None, {}),
    ("€3.5", "currency", 3.5, "EUR", None, {}),
    ("5 €", "currency", 5, "EUR", None, {}),
    ("£10", "currency", 10, "GBP", None, {}),
    ("¥200", "currency", 200, "¥", None, {}),
    ("￥200", "currency", 200, "¥", None, {}),  # full-width yen
    ("US$ 12", "currency", 12, "USD", None, {}),
    ("HK$1,000", "currency", 1000, "HKD", None, {}),
    ("1,234 USD", "currency", 1234, "USD", None, {}),
    ("RMB 300", "currency", 300, "RMB", None, {}),
    ("300元", "currency", 300, "yuan", None, {}),
    ("200美元", "currency", 200, "USD", None, {}),
    ("3 dollars", "currency", 3, "dollars", None, {}),
    ("$5/share", "currency", 5, "$/share", None, {}),
    # scale written in the cell
    ("1.2 million", "number", 1.2, None, M, {}),
    ("1.2 Million", "number", 1.2, None, M, {}),
    ("$3.5m", "currency", 3.5, "$", M, {}),
    ("$3.5 MM", "currency", 3.5, "$", M, {}),
    ("€2.1bn", "currency", 2.1, "EUR", B, {}),
    ("2bn", "number", 2, None, B, {}),
    ("4.5B", "number", 4.5, None, B, {}),
    ("300k", "number", 300, None, 1e3, {}),
    ("12 thousand", "number", 12, None, 1e3, {}),
    ("3 lakh", "number", 3, None, 1e5, {}),
    ("1.2万", "number", 1.2, None, 1e4, {}),
    ("3亿", "number", 3, None, 1e8, {}),
    ("1.5万元", "currency", 1.5, "yuan", 1e4, {}),
    ("2.3百万", "number", 2.3, None, M, {}),
    ("100万人", "number", 100, "人", 1e4, {}),
    ("5m people", "number", 5, "people", M, {}),
    ("100m", "number", 100, "m", None, {}),  # metres: a bare lowercase m is not a million
    ("5 m", "number", 5, "m", None, {}),
    ("5千克", "number", 5, "千克", None, {}),  # kilograms, not 5 thousand grams
    # units
    ("12 kg", "number", 12, "kg", None, {}),
    ("12kg", "number", 12, "kg", None, {}),
    ("12 KG", "number", 12, "kg", None, {}),
    ("5 km", "number", 5, "km", None, {}),
    ("3 people", "number", 3, "people", None, {}),
    ("12 full-time staff", "number", 12, "full-time staff", None, {}),
    ("12 abc", "number", 12, "abc", None, {}),
    ("5 km/h", "number", 5, "km/h", None, {}),
    ("3 people per household", "number", 3, "people/household", None, {}),
    ("20 m²", "number", 20, "m²", None, {}),
    ("30℃", "number", 30, "°C", None, {}),
    ("450 MWh", "number", 450, "MWh", None, {}),
    ("3x", "number", 3, "x", None, {}),
    ("2h", "number", 2, "h", None, {}),
    ("45 min", "number", 45, "min", None, {}),
    ("587.81 million yuan", "currency", 587.81, "yuan", M, {}),
    ("≥200 RMB per person per month", "range", None, "RMB/person/month", None, {"low": 200}),
    # ordinals
    ("5th", "ordinal", 5, None, None, {}),
    ("1st", "ordinal", 1, None, None, {}),
    ("22nd", "ordinal", 22, None, None, {}),
    ("3rd", "ordinal", 3, None, None, {}),
    ("11th", "ordinal", 11, None, None, {}),
    ("113th", "ordinal", 113, None, None, {}),
    ("第5", "ordinal", 5, None, None, {}),
    ("第5名", "ordinal", 5, None, None, {}),
    # years (a marker is needed)
    ("FY2019", "year", 2019, None, None, {"date": "2019"}),
    ("FY 2019", "year", 2019, None, None, {"date": "2019"}),
    ("FY19", "year", 2019, None, None, {"date": "2019"}),
    ("Spring 1932", "year", 1932, None, None, {"date": "1932"}),
    ("in 1932", "year", 1932, None, None, {"date": "1932"}),
    ("c. 1932", "year", 1932, None, None, {"date": "1932"}),
    ("2021年", "year", 2021, None, None, {"date": "2021"}),
    ("2021年度", "year", 2021, None, None, {"date": "2021"}),
    ("2019/20", "year", None, None, None, {"date": "2019/2020", "low": 2019, "high": 2020}),
    ("2019-20", "year", None, None, None, {"date": "2019/2020", "low": 2019, "high": 2020}),
    ("2011-12", "year", None, None, None, {"date": "2011/2012", "low": 2011, "high": 2012}),
    ("1999-00", "year", None, None, None, {"date": "1999/2000", "low": 1999, "high": 2000}),
    ("2019/2020", "year", None, None, None, {"date": "2019/2020", "low": 2019, "high": 2020}),
    ("FY2019/20", "year", None, None, None, {"date": "2019/2020", "low": 2019, "high": 2020}),
    # dates
    ("2021-03-05", "date", None, None, None, {"date": "2021-03-05"}),
    ("2021/3/5", "date", None, None, None, {"date": "2021-03-05"}),
    ("2021-03-05 00:00:00", "date", None, None, None, {"date": "2021-03-05"}),
    # a time of day is kept, with its offset; midnight is the date alone
    ("2021-03-05T10:30:00Z", "date", None, None, None, {"date": "2021-03-05T10:30:00Z"}),
    ("2024-01-04 14:52", "date", None, None, None, {"date": "2024-01-04T14:52"}),
    ("2024-01-04 14:52:07+0100", "date", None, None, None, {"date": "2024-01-04T14:52:07+01:00"}),
    ("2024-01-04 25:52", "date", None, None, None, {"date": "2024-01-04"}),
    ("03/05/2021", "date", None, None, None, {"date": "2021-03-05"}),  # month first (US)
    ("13/05/2021", "date", None, None, None, {"date": "2021-05-13"}),  # day > 12: day first
    ("05.03.2021", "date", None, None, None, {"date": "2021-03-05"}),  # dots: day first
    ("3/5/21", "date", None, None, None, {"date": "2021-03-05"}),
    ("1/2/99", "date", None, None, None, {"date": "1999-01-02"}),
    ("March 5, 2021", "date", None, None, None, {"date": "2021-03-05"}),
    ("Mar. 5th, 2021", "date", None, None, None, {"date": "2021-03-05"}),
    ("Friday, March 5, 2021", "date", None, None, None, {"date": "2021-03-05"}),
    ("5 March 2021", "date", None, None, None, {"date": "2021-03-05"}),
    ("5th of March 2021", "date", None, None, None, {"date": "2021-03-05"}),
    ("5-Mar-21", "date", None, None, None, {"date": "2021-03-05"}),
    ("29 Feb 2024", "date", None, None, None, {"date": "2024-02-29"}),
    ("Mar 2021", "date", None, None, None, {"date": "2021-03"}),
    ("March, 2021", "date", None, None, None, {"date": "2021-03"}),
    ("Sept 2021", "date", None, None, None, {"date": "2021-09"}),
    ("Mar-21", "date", None, None, None, {"date": "2021-03"}),  # Excel's mmm-yy
    ("Mar '21", "date", None, None, None, {"date": "2021-03"}),
    ("Mar ’21", "date", None, None, None, {"date": "2021-03"}),
    ("2021-03", "date", None, None, None, {"date": "2021-03"}),
    ("2021年3月", "date", None, None, None, {"date": "2021-03"}),
    ("2021年3月5日", "date", None, None, None, {"date": "2021-03-05"}),
    ("3月5日", "date", None, None, None, {"date": "--03-05"}),
    ("3月", "date", None, None, None, {"date": "--03"}),
    ("October 17", "date", None, None, None, {"date": "--10-17"}),
    ("17 October", "date", None, None, None, {"date": "--10-17"}),
    ("5-Mar", "date", None, None, None, {"date": "--03-05"}),
    ("Mar 21", "date", None, None, None, {"date": "--03-21"}),  # a space: 21 March
    ("Feb 29", "date", None, None, None, {"date": "--02-29"}),
    ("October", "date", None, None, None, {"date": "--10"}),
    ("Q1 2024", "date", None, None, None, {"date": "2024-Q1"}),
    ("2024 Q1", "date", None, None, None, {"date": "2024-Q1"}),
    ("2024-Q4", "date", None, None, None, {"date": "2024-Q4"}),
    ("q3 2024", "date", None, None, None, {"date": "2024-Q3"}),
    ("H1 2024", "date", None, None, None, {"date": "2024-H1"}),
    # durations in seconds
    ("1:23.45", "duration", 83.45, "s", None, {}),
    ("2:03:04", "duration", 7384, "s", None, {}),
    ("12:30", "duration", 750, "s", None, {}),  # the text cannot tell a clock time
    ("1h 30m", "duration", 5400, "s", None, {}),
    ("1h30m", "duration", 5400, "s", None, {}),
    ("2 hours 15 minutes", "duration", 8100, "s", None, {}),
    ("5m 30s", "duration", 330, "s", None, {}),
    ("1.5h 30s", "duration", 5430.0, "s", None, {}),
    # ranges and bounds
    ("10-20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10–20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10—20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10 to 20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10 - 20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10~20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10〜20", "range", None, None, None, {"low": 10, "high": 20}),
    ("10至20", "range", None, None, None, {"low": 10, "high": 20}),
    ("-5-10", "range", None, None, None, {"low": -5, "high": 10}),
    ("1,000-2,500", "range", None, None, None, {"low": 1000, "high": 2500}),
    ("10-20%", "range", None, "%", None, {"low": 10, "high": 20}),
    ("$10-$20", "range", None, "$", None, {"low": 10, "high": 20}),
    ("10-20 kg", "range", None, "kg", None, {"low": 10, "high": 20}),
    ("10-20 million", "range", None, None, M, {"low": 10, "high": 20}),
    ("10k-20k", "range", None, None, 1e3, {"low": 10, "high": 20}),
    ("1990–1995", "range", None, None, None, {"low": 1990, "high": 1995, "date": "1990/1995"}),
    ("1990-95", "range", None, None, None, {"low": 1990, "high": 1995, "date": "1990/1995"}),
    ("2019-2020", "range", None, None, None, {"low": 2019, "high": 2020, "date": "2019/2020"}),
    ("<5", "range", None, None, None, {"high": 5}),
    ("≤ 10", "range", None, None, None, {"high": 10}),
    ("<= 10", "range", None, None, None, {"high": 10}),
    (">100", "range", None, None, None, {"low": 100}),
    ("≥200", "range", None, None, None, {"low": 200}),
    ("≧200", "range", None, None, None, {"low": 200}),
    ("> 5%", "range", None, "%", None, {"low": 5}),
    ("<$5", "range", None, "$", None, {"high": 5}),
    ("65+", "range", None, None, None, {"low": 65}),
    ("65+ years", "range", None, "years", None, {"low": 65}),
    ("65 or more", "range", None, None, None, {"low": 65}),
    ("60岁以上", "range", None, "岁", None, {"low": 60}),
    ("at least 5", "range", None, None, None, {"low": 5}),
    ("more than 5", "range", None, None, None, {"low": 5}),
    ("up to 10", "range", None, None, None, {"high": 10}),
    ("under 18", "range", None, None, None, {"high": 18}),
    ("555-1234", "range", None, None, None, {"low": 555, "high": 1234}),  # cannot tell a phone
    # text and empty
    ("", "empty", None, None, None, {}),
    ("   ", "empty", None, None, None, {}),
    ("Revenue", "text", None, None, None, {}),
    ("N/A", "text", None, None, None, {}),
    ("n.a.", "text", None, None, None, {}),
    ("-", "text", None, None, None, {}),
    ("—", "text", None, None, None, {}),
    ("–", "text", None, None, None, {}),
    ("$", "text", None, None, None, {}),
    ("%", "text", None, None, None, {}),
    ("Q1", "text", None, None, None, {}),
    ("H3 2024", "text", None, None, None, {}),
    ("A1", "text", None, None, None, {}),
    ("3rd Street", "text", None, None, None, {}),
    ("1th", "text", None, None, None, {}),
    ("1-2-3", "text", None, None, None, {}),
    ("20-10", "text", None, None, None, {}),  # reversed: a score, not a range
    ("555-123-4567", "text", None, None, None, {}),
    ("+1 555 123 4567", "text", None, None, None, {}),
    ("(555) 123-4567", "text", None, None, None, {}),
    ("10.5.2", "text", None, None, None, {}),
    ("192.168.1.1", "text", None, None, None, {}),
    ("1,23,4", "text", None, None, None, {}),
    ("1,2345", "text", None, None, None, {}),
    ("1,5", "text", None, None, None, {}),  # one comma: not a group, and not read as decimal
    ("12abc", "text", None, None, None, {}),
    ("3 People", "text", None, None, None, {}),
    ("007", "text", None, None, None, {}),
    ("02134", "text", None, None, None, {}),
    ("12345678901234567", "text", None, None, None, {}),
    ("1e400", "text", None, None, None, {}),
    ("nan", "text", None, None, None, {}),
    ("inf", "text", None, None, None, {}),
    ("Total 2019", "text", None, None, None, {}),
    ("1930s", "text", None, None, None, {}),
    ("12:30 PM", "text", None, None, None, {}),
    ("1:2", "text", None, None, None, {}),
    ("Feb 30, 2021", "text", None, None, None, {}),
    ("13/13/2021", "text", None, None, None, {}),
    ("10-11-12", "text", None, None, None, {}),
    ("$5 USD", "text", None, None, None, {}),
    ("5(3)", "text", None, None, None, {}),
    ("-(5)", "text", None, None, None, {}),
    ("--5", "text", None, None, None, {}),
    ("$5%", "text", None, None, None, {}),
    ("$1km", "text", None, None, None, {}),
    ("US$5 each", "text", None, None, None, {}),
    ("1,234 (est.)", "number", 1234, None, None, {}),  # a word about the figure, kept in text
    ("0 (uninhabited)", "number", 0, None, None, {}),
    ("1.2万%", "text", None, None, None, {}),
]


@pytest.mark.parametrize(("text", "kind", "number", "unit", "scale", "other"), CASES)
def test_parse_value(text, kind, number, unit, scale, other):
    v = parse_value(text)
    got = v.to_dict()
    got.pop("text")
    expected = {"kind": kind, "number": number, "unit": unit, "scale": scale, **other}
    if scale is not None:
        expected["scale_source"] = "cell"
    assert got == {k: x for k, x in expected.items() if x is not None}


@pytest.mark.parametrize(
    ("text", "number_type"),
    [("1,234", int), ("1932", int), ("+3", int), ("12.", float), ("1.2e3", float),
     ("1,234.50", float), ("2:03:04", int), ("1:23.45", float), ("1.2万", float)],
)
def test_number_keeps_the_written_type(text, number_type):
    assert type(parse_value(text).number) is number_type


@pytest.mark.parametrize(
    ("text", "normalised"),
    [("５０", "50"), ("1\u2009234", "1 234"), ("12.5％", "12.5%"), ("\u22125", "-5"),
     ("（万元）", "(万元)"), ("  Revenue \n", "Revenue"), ("\u200b12", "12"), ("", "")],
)
def test_text_is_nfkc_normalised_and_stripped(text, normalised):
    assert parse_value(text).text == normalised


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.2万", 12000.0), ("$3.5m", 3_500_000.0), ("587.81 million yuan", 587_810_000.0),
     ("0.1 billion", 100_000_000.0), ("12.5%", 12.5), ("(1,234)", -1234), ("1,234", 1234),
     ("10-20", None), ("2021-03-05", None), ("Revenue", None), ("FY2019", 2019)],
)
def test_value_applies_the_scale_exactly(text, value):
    assert parse_value(text).value() == value


def test_to_dict_omits_unset_fields_and_is_json():
    v = parse_value("≥200 RMB per person per month")
    assert v.to_dict() == {
        "kind": "range", "unit": "RMB/person/month", "low": 200,
        "text": "≥200 RMB per person per month",
    }
    assert json.loads(json.dumps(v.to_dict(), ensure_ascii=False)) == v.to_dict()
    assert parse_value("").to_dict() == {"kind": "empty", "text": ""}


def test_typed_value_is_frozen():
    v = parse_value("12")
    with pytest.raises(AttributeError):
        v.number = 13  # type: ignore[misc]


def test_long_text_is_text():
    prose = "Revenue grew 12.5% to $3.5m in 2021 " * 5
    assert parse_value(prose).kind == "text"
    assert parse_value("1-" * 5000 + "1").kind == "text"


# ---------------------------------------------------------------------------------------------
# parse_raw

RAW_CASES = [
    (0.125, "12.5%", {"kind": "percent", "number": 12.5, "unit": "%"}),
    (0.12456, "12.5%", {"kind": "percent", "number": 12.456, "unit": "%"}),  # stored precision
    (0.07, "7%", {"kind": "percent", "number": 7, "unit": "%"}),
    (1, "100%", {"kind": "percent", "number": 100, "unit": "%"}),
    (1234.5678, "1,234.57", {"kind": "number", "number": 1234.5678}),
    (1234.5678, "$1,234.57", {"kind": "currency", "number": 1234.5678, "unit": "$"}),
    (-1234.4, "(1,234)", {"kind": "number", "number": -1234.4}),
    (1234.0, "1,234", {"kind": "number", "number": 1234}),
    (123456789012.0, "1.23457E+11", {"kind": "number", "number": 123456789012.0}),
    # a number format that scales ("0.0,,") is kept as written: the header states the scale
    (3500000, "3.5", {"kind": "number", "number": 3.5}),
    (3500000, "$3.5M", {"kind": "currency", "number": 3.5, "unit": "$", "scale": M,
                        "scale_source": "cell"}),
    (1234, "", {"kind": "number", "number": 1234}),
    (1234.5, "", {"kind": "number", "number": 1234.5}),
    (float("nan"), "", {"kind": "text"}),
    (True, "", {"kind": "text"}),
    (False, "FALSE", {"kind": "text"}),
    (dt.datetime(2021, 3, 5, 10, 30), "", {"kind": "date", "date": "2021-03-05"}),
    (dt.datetime(2021, 3, 5, 10, 30), "3/5/21 10:30", {"kind": "date", "date": "2021-03-05T10:30"}),
    (dt.datetime(2021, 3, 5, 21, 30, 5), "2021-03-05 9:30:05 PM",
     {"kind": "date", "date": "2021-03-05T21:30:05"}),
    (dt.datetime(2021, 3, 5, 10, 30), "05-Mar-2021", {"kind": "date", "date": "2021-03-05"}),
    (dt.datetime(2021, 3, 1), "Mar 2021", {"kind": "date", "date": "2021-03"}),
    (dt.date(2021, 3, 5), "5-Mar", {"kind": "date", "date": "2021-03-05"}),
    (dt.date(2021, 1, 1), "2021", {"kind": "year", "number": 2021, "date": "2021"}),
    (dt.time(0, 1, 23, 450000), "1:23.45", {"kind": "duration", "number": 83.45, "unit": "s"}),
    (dt.time(12, 30), "12:30", {"kind": "duration", "number": 45000, "unit": "s"}),
    (None, "", {"kind": "empty"}),
    (None, "12%", {"kind": "percent", "number": 12, "unit": "%"}),
    ("12", "", {"kind": "number", "number": 12}),
    ("abc", "", {"kind": "text"}),
]


@pytest.mark.parametrize(("raw", "text", "expected"), RAW_CASES)
def test_parse_raw(raw, text, expected):
    got = parse_raw(raw, text).to_dict()
    got.pop("text")
    assert got == expected


@pytest.mark.parametrize(
    ("raw", "text", "shown"),
    [(True, "", "TRUE"), (False, "", "FALSE"), (dt.date(2021, 3, 5), "", "2021-03-05"),
     (dt.time(9, 5), "", "09:05:00"), (7, "", "7"), (7, "００７", "007")],
)
def test_parse_raw_text(raw, text, shown):
    assert parse_raw(raw, text).text == shown


def test_parse_raw_keeps_integers_whole():
    assert type(parse_raw(1234.0, "1,234").number) is int
    assert type(parse_raw(1234, "").number) is int


# ---------------------------------------------------------------------------------------------
# Scale from headers and titles

@pytest.mark.parametrize(
    ("text", "scale"),
    [
        ("in thousands", 1e3),
        ("(in millions)", M),
        ("Revenue ($ million)", M),
        ("in billions of dollars", B),
        ("Revenue ($m)", M),
        ("Revenue ($M)", M),
        ("Revenue ($mm)", M),
        ("Sales (USD mn)", M),
        ("£bn", B),
        ("Amount (K)", 1e3),
        ("USD '000", 1e3),
        ("USD ’000", 1e3),
        ("HK$'000", 1e3),
        ("Population ('000)", 1e3),
        ("($000)", 1e3),
        ("(000s)", 1e3),
        ("Figures in '000,000", M),
        ("Rs. in lakhs", 1e5),
        ("in crores", 1e7),
        ("单位：万元", 1e4),
        ("单位: 亿", 1e8),
        ("（亿元）", 1e8),
        ("(百万元)", M),
        ("千元", 1e3),
        ("Employees (万人)", 1e4),
        ("Revenue", None),
        ("", None),
        ("Year 2000", None),
        ("Total 1,000", None),
        ("Height (m)", None),
        ("Rainfall (mm)", None),
        ("deaths per thousand", None),
        ("millionaires", None),
        ("万科 Revenue", None),
        ("Revenue in millions, per-share data in thousands", None),  # two scales: say nothing
        ("Revenue (in millions; 2021 in millions)", M),
    ],
)
def test_scale_from_context(text, scale):
    assert scale_from_context(text) == scale


def test_apply_context_scale_sets_scale_and_source():
    v = apply_context_scale(parse_value("1,234"), 1e3, "header")
    assert (v.number, v.scale, v.scale_source, v.value()) == (1234, 1e3, "header", 1_234_000.0)
    r = apply_context_scale(parse_value("10-20"), M, "title")
    assert (r.low, r.high, r.scale, r.scale_source) == (10, 20, M, "title")


def test_apply_context_scale_cell_scale_wins():
    v = parse_value("$3.5m")
    assert apply_context_scale(v, 1e3, "title") is v


@pytest.mark.parametrize("text", ["12.5%", "2021-03-05", "FY2019", "5th", "1:23.45", "Revenue",
                                  "", "10-20%", "1990–1995"])
def test_apply_context_scale_leaves_non_amounts(text):
    v = parse_value(text)
    assert apply_context_scale(v, M, "header") is v


def test_apply_context_scale_rejects_unknown_source():
    with pytest.raises(ValueError, match="source"):
        apply_context_scale(parse_value("1"), M, "cell")


# ---------------------------------------------------------------------------------------------
# Properties

FULL_WIDTH = str.maketrans("0123456789-", "０１２３４５６７８９－")
MAX_EXACT = 10**15 - 1


@given(st.integers(-MAX_EXACT, MAX_EXACT))
def test_integers_round_trip(n):
    for text in (str(n), f"{n:,}", f"{n:_}".replace("_", " "), str(n).translate(FULL_WIDTH)):
        v = parse_value(text)
        assert (v.kind, v.number) == ("number", n), text


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e14, max_value=1e14))
def test_floats_round_trip(x):
    v = parse_value(repr(x))
    assert v.kind == "number"
    assert v.number == x


@given(st.decimals(min_value=-10**9, max_value=10**9, places=2, allow_nan=False))
def test_percent_and_accounting(d):
    text = f"{abs(d):,}"
    assert parse_value(f"{d}%").number == float(d)
    assert parse_value(f"({text})").number == -float(abs(d))


@given(st.integers(1, 10**6), st.integers(0, 10**6))
def test_ranges_round_trip(low, span):
    v = parse_value(f"{low}–{low + span}")
    assert (v.kind, v.low, v.high) == ("range", low, low + span)


@given(st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(2100, 12, 31)))
def test_dates_round_trip(day):
    iso = day.isoformat()
    for text in (iso, f"{day:%B} {day.day}, {day.year}", f"{day.day} {day:%b} {day.year}",
                 f"{day.year}年{day.month}月{day.day}日"):
        assert parse_value(text).date == iso, text


@given(st.text(max_size=40))
def test_any_text_gives_a_valid_json_value(text):
    v = parse_value(text)
    assert v.kind in KINDS
    assert isinstance(v, TypedValue)
    json.dumps(v.to_dict(), allow_nan=False)
    if v.kind in ("number", "percent", "currency", "ordinal", "duration"):
        assert v.number is not None
    if v.kind in ("text", "empty", "date", "range"):
        assert v.number is None
    assert v.kind != "empty" or v.text == ""


@given(st.text(alphabet="0123456789,.-+%$()€万亿kmMB:/ ", max_size=16))
def test_numeric_looking_text_never_raises(text):
    v = parse_value(text)
    assert v.kind in KINDS
    json.dumps(v.to_dict(), allow_nan=False)


@pytest.mark.parametrize(("number", "places", "shown"), [
    (77.25, 1, 77.3), (-0.125, 2, -0.13), (2.5, 0, 3.0),
    (1e28, 0, 1e28), (1.7e308, 2, 1.7e308),  # past the 28 digits of Decimal's default context
    (float("inf"), 1, float("inf")),
])
def test_half_up_rounding_of_any_float(number, places, shown):
    from ingest.numfmt import round_half_up

    assert round_half_up(number, places) == shown


def test_a_huge_number_shown_as_a_small_text_is_read_without_error():
    """A cell storing 1e28 behind the text "0" (found by the round-trip property test): the
    check that the text is a rounding of the number must not raise."""
    value = parse_raw(1e28, "0")
    assert value.number is not None


@pytest.mark.parametrize(("raw", "text", "number"), [
    (114903, "D   114,903", 114903),          # format \D\ \ \ #,##0: a flag, then the number
    (498647.8, "E 498,647.8", 498647.8),
    (114903.4, "114,903 (e)", 114903.4),       # estimated
    (12, "12 *", 12),
])
def test_a_number_shown_with_a_flag_is_the_stored_number(raw, text, number):
    value = parse_raw(raw, text)
    assert (value.kind, value.number, value.text) == ("number", number, text)


def test_a_flagged_display_of_another_number_stays_text():
    assert parse_raw(5, "D   114,903").kind == "text"


@pytest.mark.parametrize(("text", "number"), [
    ("14.2 (57.6)", 14.2), ("−18.6 (−1.5)", -18.6), ("96 (3.78)", 96), ("1,234 (56%)", 1234),
    ("1,284,310[a]", 1284310), ("57[12]", 57), ("6,967r", 6967), ("10.2p", 10.2),
    ("94,905*", 94905), ("3.5†", 3.5), ("562 [c]", 562), ("12 (e)", 12), ("1.56 (a)", 1.56),
    ("41,200(b)", 41200), ("12.3¹", 12.3), ("1,234²³", 1234),
])
def test_a_figure_with_its_conversion_share_or_footnote_mark_is_the_figure(text, number):
    assert parse_value(text).number == number


@pytest.mark.parametrize("text", ["5 (3)", "2010 (2)", "Smith[1]", "12 (m)", "5 (k)", "12a", "Q1p",
                                  "*", "(a) 12"])
def test_ambiguous_brackets_and_marked_names_stay_text(text):
    assert parse_value(text).number is None


def test_a_column_with_a_day_over_12_first_is_read_day_first_throughout():
    from ingest.values import as_day_first, writes_day_first

    assert writes_day_first(["01/07/2023", "25/07/2023", "05/08/2023"])
    assert not writes_day_first(["07/01/2023", "07/25/2023"])  # month first (US)
    assert not writes_day_first(["25/07/2023", "07/25/2023"])  # both: no reading holds
    assert parse_value(as_day_first("05/08/2023")).date == "2023-08-05"
