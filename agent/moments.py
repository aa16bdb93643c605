"""Points in time in a table's typed cells, and the time from one to another.

A duration between a row's start and end cells ("Opened" and "Closed", "Start Time" and "End
Time") is read from the cells' typed values (`ingest.values`), never from their display text:

* a date cell holds its ISO date, with the time of day it shows ("2024-02-02",
  "2024-01-04T14:52", "2024-01-04T14:52:07+01:00");
* a time of day is a duration since midnight in seconds: a spreadsheet time "13:00" holds
  46,800. Written as text, "13:00" reads as 13 min 00 s (the text alone cannot tell), so a
  column of times of day has a scale (`clock_scale`): the seconds one unit of its numbers
  counts, 60 when its "h:mm" cells were read as minutes and seconds.

The tree walk computes here in Python (`elapsed`); the SQL form computes the same over the
long view, whose `date`, `kind` and `number` columns hold the same typed values
(`sql_elapsed`: `julianday` of the ISO dates, or the numbers). Both round each row's duration
to 6 places, so the two forms pick the same longest row.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Literal

from agent.frame import Value

Moments = Literal["date", "clock"]
"""What a column's cells hold: dates (with or without a time of day), or times of day."""

Unit = Literal["seconds", "minutes", "hours", "days", "weeks"]
UNIT_SECONDS: dict[str, int] = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400,
                                "weeks": 604800}

ISO_MOMENT = re.compile(r"(\d{4}-\d\d-\d\d)(?:T(\d\d:\d\d(?::\d\d(?:\.\d+)?)?)"
                        r"(Z|[+-]\d\d:\d\d)?)?")
"""A full ISO date, with a time of day and an offset when the cell shows them: what SQLite's
`julianday` reads as `datetime.fromisoformat` does."""
SQL_ISO_MOMENT = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*"
"""The same test in SQL (a GLOB): a partial date ("2021-03", "--10-17") is no point in time."""

_CLOCK_TEXT = re.compile(r"\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([ap])\.?\s*m\.?)?\s*",
                         re.IGNORECASE)


def date_moment(iso: str | None) -> dt.datetime | None:
    """The instant a typed date names, in UTC when it states an offset (as `julianday`
    reads it: a date without one is taken as UTC too); None for a partial date."""
    m = ISO_MOMENT.fullmatch(iso) if iso else None
    if m is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(iso)  # type: ignore[arg-type]
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment


def shows_time(value: Value) -> bool:
    """Whether a date cell holds a time of day, not a whole day."""
    return value.date is not None and "T" in value.date


def clock_reading(value: Value) -> tuple[int, int, int] | None:
    """The hours, minutes and seconds a time of day's text writes ("13:00", "1:05 PM",
    "07:30:15"), else None."""
    m = _CLOCK_TEXT.fullmatch(value.text)
    if m is None:
        return None
    hour, minute, second = int(m[1]), int(m[2]), int(m[3] or 0)
    if m[4]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m[4].lower() == "p" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return hour, minute, second


def clock_scale(values: Iterable[Value]) -> int | None:
    """The seconds one unit of these times of day's numbers counts: 1 when each number is
    its time's seconds since midnight (a spreadsheet time), 60 when each is its "h:mm" read
    as minutes and seconds (text); None when they differ or a cell is no time of day."""
    scales = set()
    for value in values:
        clock = clock_reading(value)
        if clock is None or value.kind != "duration" or value.number is None:
            return None
        hour, minute, second = clock
        if value.number == hour * 3600 + minute * 60 + second:
            scales.add(1)
        elif not second and value.number == hour * 60 + minute:
            scales.add(60)
        else:
            return None
    return scales.pop() if len(scales) == 1 else None


def moments_of(values: Iterable[Value]) -> Moments | None:
    """What a column's cells (those that hold one) hold: "date" when each is a full date,
    "clock" when each is a time of day with one scale; None when there are none or they mix
    kinds."""
    held = list(values)
    if not held:
        return None
    if all(date_moment(v.date) is not None and v.kind == "date" for v in held):
        return "date"
    return "clock" if clock_scale(held) is not None else None


def point(value: Value | None, moments: Moments, scale: int = 1) -> dt.datetime | float | None:
    """A cell's point in time: its instant (dates) or its seconds since midnight (times of
    day); None when it holds none (blank, "ongoing", a partial date)."""
    if value is None:
        return None
    if moments == "date":
        return date_moment(value.date) if value.kind == "date" else None
    if value.kind != "duration" or value.number is None:
        return None
    return value.number * scale


def elapsed(start: dt.datetime | float, end: dt.datetime | float, unit: Unit) -> float:
    """The time from `start` to `end` in `unit`, rounded to 6 places as `sql_elapsed` does."""
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime):
        days = (end - start).total_seconds() / 86400
        return round(days * (86400 / UNIT_SECONDS[unit]), 6)
    assert isinstance(start, float | int) and isinstance(end, float | int)
    return round((end - start) / UNIT_SECONDS[unit], 6)


def sql_point(alias: str, moments: Moments, scale: int = 1) -> str:
    """A long view row's point in time in SQL, NULL when it holds none: its `julianday`
    (dates, in days) or its seconds since midnight (times of day)."""
    if moments == "date":
        return (f"CASE WHEN {alias}.\"kind\" = 'date' AND {alias}.\"date\" GLOB "
                f"'{SQL_ISO_MOMENT}' THEN julianday({alias}.\"date\") END")
    return f"CASE WHEN {alias}.\"kind\" = 'duration' THEN {alias}.\"number\" * {scale:d} END"


def sql_elapsed(start: str, end: str, moments: Moments, unit: Unit) -> str:
    """`elapsed` in SQL, from two `sql_point`s."""
    if moments == "date":
        return f"ROUND(({end} - {start}) * {86400 / UNIT_SECONDS[unit]!r}, 6)"
    return f"ROUND(({end} - {start}) / {float(UNIT_SECONDS[unit])!r}, 6)"


def in_words(value: float | int, unit: Unit) -> str:
    """A duration as the answer says it: "3.5 days", "1 day", "62.64 minutes", "0.104 days"
    (two decimals, or three significant digits below 1; the value keeps six)."""
    shown = f"{value:,.2f}" if abs(value) >= 1 or not value else f"{value:.3g}"
    shown = shown.rstrip("0").rstrip(".") if "." in shown else shown
    word = unit if shown != "1" else unit[:-1]
    return f"{shown} {word}"
