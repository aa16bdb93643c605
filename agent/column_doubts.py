"""The doubts a column raises over an aggregate's rows: percentages (adding them means
nothing), a row that is the total of the others, group rows mixed with their members, subtotal
rows under their group.

Each doubt reads every number of the column over the plan's rows: 20,000 values per check, in
Python, on every aggregate over a 1M-cell table. A question that names no row nor condition
reads the table's `whole_rows`, so over those rows the doubts are facts of the column: computed
for every numeric column after an upload (`prepare_doubts`), stored with the table's other
facts (`agent/table_profile.py`; a workspace stored before this is filled a column at a time,
on its first question), and read on each question. Over any other rows they are computed as
they always were.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from agent import stop
from agent.frame import Frame
from agent.table_facts import profile, total_labelled
from agent.table_profile import table_fact
from agent.text import label_tokens


class Doubts(BaseModel):
    """A column's doubts over the whole table's rows (`whole_rows`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    percent_values: bool
    holds_its_total: bool
    subtotal_runs: bool
    nested: bool


def doubt(frame: Frame, rows: list[int], key: str, name: str) -> bool:
    """A doubt (a field of `Doubts`) of a column over these rows: the stored fact when they are
    the whole table's rows and the column is numeric (`prepare_doubts` stored it), else
    computed (a text column's would be stored by the question, a write for a cheap check)."""
    if frame.attr(key).measurable and _whole(frame, rows):
        return getattr(column_doubts(frame, key), name)
    return _CHECKS[name](frame, rows, key)


def column_doubts(frame: Frame, key: str) -> Doubts:
    """A column's doubts over `whole_rows`: kept on the frame, else stored, else computed."""
    return table_fact(frame, f"doubts:{key}", lambda f: _computed(f, key),
                      lambda d: d.model_dump(mode="json"), Doubts.model_validate)


def prepare_doubts(frame: Frame) -> None:
    """Compute and store the doubts of every numeric column, after an upload. A column read
    here is let go again: the frame would otherwise hold the whole table."""
    for attr in frame.data_attrs:
        if attr.measurable:
            unread = attr.key not in frame.columns
            column_doubts(frame, attr.key)
            if unread:
                frame.columns.pop(attr.key, None)


def _computed(frame: Frame, key: str) -> Doubts:
    rows = whole_rows(frame)
    return Doubts(**{name: check(frame, rows, key) for name, check in _CHECKS.items()})


def whole_rows(frame: Frame) -> list[int]:
    """The rows an aggregate over the whole table reads: the data rows without the totals
    (`without_totals`), found once per frame."""
    if "whole_rows" not in frame.memo:
        frame.memo["whole_rows"] = without_totals(frame, list(frame.rows))
    return frame.memo["whole_rows"]


def _whole(frame: Frame, rows: list[int]) -> bool:
    whole = whole_rows(frame)
    return rows is whole or (len(rows) == len(whole) and rows == whole)


def without_totals(frame: Frame, rows: list[int], named: set[str] = frozenset()
                   ) -> list[int]:
    """Drop rows labelled as totals, subtotals or summaries and repeated header rows, so an
    aggregate or a count over the rows does not count them twice (a summary row the question
    names by its label stays)."""
    dropped = profile(frame).summary_rows | total_labelled(frame)
    kept = [r for r in stop.checked(rows) if r not in dropped
            or set(label_tokens(*frame.row_paths.get(r, ()))) & named]
    return kept or rows


def percent_values(frame: Frame, rows: list[int], key: str) -> bool:
    """True when the column's numbers on these rows are all percentages (and there is one)."""
    values = [v for v in frame.values_of(key, rows) if v is not None and v.numeric]
    return bool(values) and all(v.kind == "percent" for v in values)


def holds_its_total(frame: Frame, rows: list[int], key: str) -> bool:
    """True when one row's number is half (or a third) of the column's sum over the rows: it
    is the total of the others (or the rows hold subtotals too), whatever its label.

    A total of the others needs two rows besides it; a third of the sum needs a grand total,
    two subtotals and a member of each (five rows). With fewer, a third of the sum is only the
    middle of three evenly spaced amounts (10, 25, 40), and refusing it would make the answer
    depend on the data."""
    numbers = [v.number for v in frame.values_of(key, rows) if v is not None and v.measurable]
    total = sum(numbers)
    if len(numbers) < 3 or total <= 0:
        return False
    shares = (2, 3) if len(numbers) >= 5 else (2,)
    return any(n > 0 and abs(n * k - total) <= 0.002 * total for n in numbers for k in shares)


def nested(frame: Frame, rows: list[int], key: str) -> bool:
    """True when one of the rows is a group row whose number is the sum of the rows under it
    (a subtotal): adding it with its members counts them twice."""
    if profile(frame).row_depth < 2:
        return False  # one level of row labels: no row is under another (nor read)
    paths = {r: frame.row_paths.get(r, ()) for r in rows}
    # Rows by each shorter path their own path starts with: one pass, not a scan of all rows
    # for each row (quadratic in a long table).
    members: dict[tuple[str, ...], list[int]] = {}
    for r, path in paths.items():
        for depth in range(1, len(path)):
            members.setdefault(path[:depth], []).append(r)
    if not members:
        return False  # one level of row labels: no row is under another
    for r, path in paths.items():
        under = members.get(path, []) if path else []
        if not under:
            continue
        own = frame.value(r, key)
        if own is None or not own.measurable:
            continue
        parts = [v.number for c in under if (v := frame.value(c, key)) is not None
                 and v.measurable]
        if parts and abs(sum(parts) - own.number) <= 0.002 * max(abs(own.number), 1):
            return True
    return False


_SUBTOTAL_FLOOR = 100
"""Small numbers (points, sizes, ratios) often add up to a neighbour by chance; counts and
amounts large enough to be subtotals rarely do."""


def subtotal_runs(frame: Frame, rows: list[int], key: str) -> bool:
    """True when the rows hold groups with their members: two group rows in a row, each
    equal to the sum of the rows between it and the next group (a group row above or below
    its members, with no path to say so), so adding or ranking the rows mixes the levels.
    Groups must tile like that: on a long column of unrelated amounts some row equals the sum
    of the few after it by chance, and then the answer would depend on the data."""
    numbers = [(v.number if v is not None and v.measurable else None)
               for v in frame.values_of(key, rows)]
    # A group's row may come before its members or after them (a total at the foot).
    return _tiled_groups(numbers) or _tiled_groups(numbers[::-1])


def _tiled_groups(numbers: list[float | int | None]) -> bool:
    """Whether a number equals the sum of two or more of the numbers right after it, and the
    number right after those starts another such group."""
    ends = {i: end for i in stop.checked(run_starts(numbers))
            if (end := run_end(numbers, i)) is not None}
    return any(end + 1 in ends for end in ends.values())


_LOOSE = 0.0011
"""A little wider than `run_end`'s 0.001, so float rounding of the prefix sums never drops
a start that the exact walk would find."""


def run_starts(numbers: list[float | int | None]) -> list[int]:
    """The indexes where `run_end` may find a run: all of them when a number is negative (a
    run's sum can fall again), else those whose first reach of their own value after them,
    found by binary search over prefix sums, lands within the tolerance before a gap. The
    walk from every index cost 8 ms per question on a 2,000-row column (85 ms at 20,000)."""
    values = np.array([np.nan if n is None else float(n) for n in numbers])
    known = values[~np.isnan(values)]
    if len(known) < 3:
        return []  # a run is a number and two or more after it
    if known.min() < 0:
        return list(range(len(values)))
    gap = np.isnan(values)
    prefix = np.concatenate(([0.0], np.cumsum(np.where(gap, 0.0, values))))
    # The first gap at or after each index (len when none): a run stops at a gap.
    idx = np.where(gap, np.arange(len(values)), len(values))
    next_gap = np.minimum.accumulate(idx[::-1])[::-1]
    own = np.where(gap, 0.0, values)
    starts = np.nonzero(~gap & (own >= _SUBTOTAL_FLOOR))[0]
    starts = starts[starts + 2 < len(values)]
    if not len(starts):
        return []
    base = prefix[starts + 1]
    # The first j whose run (prefix[j + 1] - base) reaches own*(1 - _LOOSE), and at least i+2.
    first = np.searchsorted(prefix, base + own[starts] * (1 - _LOOSE), side="left") - 1
    j = np.maximum(first, starts + 2)
    inside = j < len(values)
    j = np.minimum(j, len(values) - 1)
    run = prefix[j + 1] - base
    ok = inside & (run <= own[starts] * (1 + _LOOSE)) & (j < next_gap[starts + 1])
    return starts[ok].tolist()


def run_end(numbers: list[float | int | None], i: int) -> int | None:
    """The index of the last of two or more numbers after `i` that add up to numbers[i]."""
    own = numbers[i]
    if own is None or own < _SUBTOTAL_FLOOR:
        return None
    run = 0.0
    for j in range(i + 1, len(numbers)):
        value = numbers[j]
        if value is None:
            return None
        run += value
        if j > i + 1 and abs(run - own) <= 0.001 * own:
            return j
        if run > own * 1.001:
            return None
    return None


_CHECKS = {"percent_values": percent_values, "holds_its_total": holds_its_total,
           "subtotal_runs": subtotal_runs, "nested": nested}
