"""The doubts a column raises over an aggregate's rows (the solver's checks: percentages, a row
that is the total of the others, group rows mixed with their members, nested subtotals), kept
as facts of the column over the whole table's rows.

Each check reads every number of the column over the plan's rows: 20,000 values per check, in
Python, on every aggregate over a 1M-cell table. A question that names no row nor condition
reads the table's `whole_rows`, so over those rows a check's answer is a fact of the column:
computed for every numeric column after an upload (`prepare_doubts`), stored with the table's
other facts (`agent/table_profile.py`; a workspace stored before this is filled a column at a
time, on its first question), and read on each question. Over any other rows, or on a text
column (which an upload does not prepare, and a question should not write for), the check is
computed as it always was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agent import stop
from agent.frame import Frame
from agent.table_facts import profile, total_labelled
from agent.table_profile import table_fact
from agent.text import label_tokens

Check = Callable[[Frame, list[int], str], bool]
"""A doubt: (frame, rows, column key) -> whether the column raises it over those rows."""


def doubt(frame: Frame, rows: list[int], key: str, check: Check) -> bool:
    """A check's answer for a column over these rows: stored when they are the whole table's
    rows and the column is numeric, else computed."""
    if frame.attr(key).measurable and are_whole_rows(frame, rows):
        return column_doubt(frame, key, check)
    return check(frame, rows, key)


def column_doubt(frame: Frame, key: str, check: Check) -> bool:
    """A check's answer for a column over `whole_rows`: kept on the frame, else stored, else
    computed (and stored)."""
    return table_fact(frame, f"doubt:{check.__name__}:{key}",
                      lambda f: check(f, whole_rows(f), key), bool, bool)


def prepare_doubts(frame: Frame, checks: Iterable[Check],
                   facts: Iterable[Callable[[Frame, str], object]] = ()) -> None:
    """Compute and store these checks for every numeric column, after an upload, with the
    column's other `facts` (each read while the column is held). The columns read here are
    let go again: the frame would otherwise hold the whole table."""
    checks, facts = list(checks), list(facts)
    for attr in frame.data_attrs:
        if attr.measurable:
            held = set(frame.columns)
            for check in checks:
                column_doubt(frame, attr.key, check)
            for fact in facts:
                fact(frame, attr.key)
            for key in set(frame.columns) - held:
                del frame.columns[key]


def whole_rows(frame: Frame) -> list[int]:
    """The rows an aggregate over the whole table reads: the data rows without the totals
    (`without_totals`), found once per frame."""
    if "whole_rows" not in frame.memo:
        frame.memo["whole_rows"] = without_totals(frame, list(frame.rows))
    return frame.memo["whole_rows"]


def are_whole_rows(frame: Frame, rows: list[int]) -> bool:
    """Whether these are `whole_rows` (what an aggregate over the whole table reads)."""
    whole = whole_rows(frame)
    return rows is whole or (len(rows) == len(whole) and rows == whole)


def hidden_rows(frame: Frame) -> frozenset[int]:
    """The rows hidden on the sheet ("ZZ Test account", "Intercompany (eliminated)"): what the
    sheet shows its reader leaves them out, and so does an aggregate, a count or a ranking."""
    if "hidden_rows" not in frame.memo:
        frame.memo["hidden_rows"] = frame.side.hidden_rows() if frame.side is not None \
            else frozenset()
    return frame.memo["hidden_rows"]


def without_totals(frame: Frame, rows: list[int], named: set[str] = frozenset()
                   ) -> list[int]:
    """Drop rows labelled as totals, subtotals or summaries, repeated header rows and rows
    hidden on the sheet, so an aggregate or a count over the rows does not count them twice,
    nor what the sheet hides (a row the question names by its label stays)."""
    summaries = profile(frame).summary_rows | total_labelled(frame)
    hidden = hidden_rows(frame)
    dropped = summaries | hidden
    if not dropped:
        return list(rows)  # nothing to drop: without a step per row of a tall table
    kept = [r for r in stop.checked(rows) if r not in dropped
            or set(label_tokens(*frame.row_paths.get(r, ()))) & named]
    if not kept and hidden:
        # Only summaries in view: an outline collapsed to its subtotals hides the detail
        # rows they add up, which are then the rows.
        kept = [r for r in rows if r not in summaries
                or set(label_tokens(*frame.row_paths.get(r, ()))) & named]
    return kept or rows
