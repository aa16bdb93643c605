"""Combine the answers of a message's parts (`agent/decompose.py`) into one answer.

Each part was planned, walked, SQL-checked and validated like a whole question; what is kept of
it is a `PartAnswer`. The combination is arithmetic the application does on those validated
values (never the model), cites every cell the parts cited, and refuses rather than guess:
a difference, sum or ratio needs one number from each part, in one unit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from agent.decompose import CombineOp
from agent.display import cell_form, shown
from agent.frame import Frame, TableRef
from agent.grounding import measure_apart
from agent.plan import Refusal
from agent.results import Result, number


class PartAnswer(BaseModel):
    """One part's validated answer, as the combine step reads it (plain data: graph state)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    table: TableRef
    """The table the part's plan read (its cells are cited from it)."""
    result: Result
    description: str
    """The part's plan in words ("Revenue, H1 2024 > Q2")."""
    confidence: float
    """The part's calibrated confidence."""
    unsure: bool = False
    """Calibration found answers like this one too often wrong to answer."""


class Combined(BaseModel):
    """What the combine step computed: the result and the arithmetic in words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    result: Result
    working: str
    """The arithmetic as it was done ("620 (part 1) - 500 (part 2) = 120")."""


_SIGN = {"difference": "\u2212", "sum": "+", "ratio": "\u00f7"}


def combine(op: CombineOp, parts: Sequence[PartAnswer], frames: Callable[[TableRef], Frame]
            ) -> Combined | Refusal:
    """Combine the parts' results as `op` asks; every part's cited cells are cited."""
    cited = [pair for p in parts for pair in _pairs(p)]
    if op == "list":
        values = [v for p in parts for v in p.result.values]
        units = {p.result.unit for p in parts}
        display = "; ".join(p.result.display for p in parts)
        working = "; ".join(f"part {i}: {p.result.display}" for i, p in enumerate(parts, 1))
        return Combined(result=Result(values=values, display=display, cited=[],
                                      cited_in=cited, unit=units.pop() if len(units) == 1
                                      else None), working=working)
    numbers = []
    for i, p in enumerate(parts, 1):
        vals = p.result.values
        if len(vals) != 1 or isinstance(vals[0], (str, bool)):
            got = "no value" if not vals else (
                f"{len(vals)} values" if len(vals) > 1 else f"the text {vals[0]!r}")
            return Refusal(f"part {i} (\u201c{p.question}\u201d) gave {got}, not one number "
                           f"to take the {op} of")
        numbers.append(float(vals[0]))
    units = {p.result.unit for p in parts}
    if len(units) > 1:
        shown_units = " and ".join(sorted(u or "no unit" for u in units))
        return Refusal(f"the parts are in different units ({shown_units}); their {op} would "
                       "mix them")
    apart = _measured_apart(parts, frames) if op in ("difference", "ratio") else None
    if apart:
        return Refusal(f"{apart[0]} and {apart[1]} differ in more than one header, so they "
                       f"measure different things; their {op} would mean nothing")
    if op == "difference":
        value = numbers[0] - numbers[1]
    elif op == "sum":
        value = sum(numbers)
    else:
        if numbers[1] == 0:
            return Refusal(f"part 2 (\u201c{parts[1].question}\u201d) is 0; there is no ratio")
        value = numbers[0] / numbers[1]
    value = number(round(value, 10))
    display = _display(value, parts, frames, op)
    sign = f" {_SIGN[op]} "
    working = sign.join(f"{p.result.display} (part {i})" for i, p in enumerate(parts, 1)) + \
        f" = {display}"
    return Combined(result=Result(values=[value], display=display, cited=[], cited_in=cited,
                                  unit=None if op == "ratio" else units.pop()),
                    working=working)


def _measured_apart(parts: Sequence[PartAnswer], frames: Callable[[TableRef], Frame]
                    ) -> tuple[str, str] | None:
    """The labels of two parts' single cited cells of one table whose columns measure
    different things (`measure_apart`), else None."""
    cells = [_pairs(p) for p in parts]
    if len(cells) != 2 or any(len(c) != 1 for c in cells) or cells[0][0][0] != cells[1][0][0]:
        return None
    frame = frames(cells[0][0][0])
    first, second = (frame.attr(c[0][1][1]) for c in cells)
    return (first.label, second.label) if measure_apart(first.path, second.path) else None


def _pairs(part: PartAnswer) -> list[tuple[TableRef, tuple[int, str]]]:
    """A part's cited cells with their tables (a part over several tables cites them all)."""
    if part.result.cited_in:
        return list(part.result.cited_in)
    return [(part.table, cell) for cell in part.result.cited]


def _display(value: float | int, parts: Sequence[PartAnswer],
             frames: Callable[[TableRef], Frame], op: CombineOp) -> str:
    """The combined number written as the parts' cells are (separators, decimals, unit); a
    ratio has no unit and two decimals."""
    if op == "ratio":
        return f"{value:.2f}"
    values, attrs = [], []
    for p in parts:
        for table, (r, k) in _pairs(p):
            frame = frames(table)
            v = frame.value(r, k)
            if v is not None:
                values.append(v)
                attrs.append(frame.attr(k))
    if not values or not all(v.numeric for v in values):
        return str(value)
    return shown(value, values, list({a.key: a for a in attrs}.values()), 0,
                 cell_form([v.text for v in values]))
