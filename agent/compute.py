"""Run a plan over its frame in memory: the tree operation whose result the SQL step
re-derives. Every result names the cells it used, so the answer cites them."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.display import answer_unit, cell_form, read_as_written, shown
from agent.frame import Frame, Value
from agent.grounding import naming_path
from agent.solver import Plan, Refusal


@dataclass
class Result:
    """What a plan computed: answer values, display text, cited cells and the step table."""

    values: list[str | float | int]
    display: str
    cited: list[tuple[int, str]]
    """(row, column) of every cell the answer used."""
    columns: list[str]
    table_rows: list[list[object]]
    unit: str | None = None
    cited_in: list[tuple[Frame, tuple[int, str]]] = field(default_factory=list)
    """For results over several tables: each cited cell with its table."""


# --- computing over the frame (the tree operation) ----------------------------------------------

def compute(p: Plan) -> Result | Refusal:
    """Run a plan over the frame in memory."""
    frame = p.frame
    if p.op == "combined":
        results = [compute(part) for part in p.parts]
        failed = next((r for r in results if isinstance(r, Refusal)), None)
        if failed is not None:
            return failed
        numbers = [r.values[0] for r in results if len(r.values) == 1]
        if len(numbers) != len(results) or not all(isinstance(n, (int, float)) for n in numbers):
            return Refusal("the tables' results are not single numbers to add")
        total = _number(round(sum(numbers), 6))
        cited = [(part, c) for part, r in zip(p.parts, results, strict=True) for c in r.cited]
        rows = [[part.frame.caption, r.display]
                for part, r in zip(p.parts, results, strict=True)]
        values = [v for part, c in cited if (v := part.frame.value(*c)) is not None]
        attrs = [part.frame.attr(k) for part, (_, k) in cited]
        title = p.parts[0].frame.title
        display = (shown(total, values, attrs, title=title) if p.parts[0].op != "count"
                   else f"{total:,}")
        return Result([total], display, [c for _, c in cited], ["table", "result"], rows,
                      unit=answer_unit(values, attrs, cell_form([v.text for v in values]),
                                       title),
                      cited_in=[(part.frame, c) for part, c in cited])
    if p.op in ("lookup",):
        [row] = p.rows
        [key] = p.measure
        value = frame.value(row, key)
        if value is None or not value.text.strip():
            return Refusal(f"the cell for {frame.attr(key).label} is empty")
        answer: str | float | int = _number(value.number) if value.numeric else value.text
        if not value.numeric:
            return _result([answer], value.text, [(row, key)], frame, p)
        display = read_as_written(value, frame.attr(key), frame.title)
        return _result([answer], display, [(row, key)], frame, p, unit=_unit(frame, [(row, key)]))
    if p.op == "argcol":
        [row] = p.rows
        scored = [(frame.value(row, k).number, k) for k in p.measure
                  if (v := frame.value(row, k)) is not None and v.measurable]
        if len(scored) < 2:
            return Refusal("fewer than two of the compared cells hold numbers")
        best = max(n for n, _ in scored) if p.direction == "max" else min(n for n, _ in scored)
        winners = [k for n, k in scored if n == best]
        if len(winners) > 1:
            return Refusal("several columns share the best value")
        [key] = winners
        name = naming_path(frame.attr(key).path)[-1]
        return _result([name], name, [(row, k) for _, k in scored], frame, p)
    if p.op == "compare":
        values = [frame.value(r, k) for r, k in p.operands]
        if any(v is None or not v.measurable for v in values):
            return Refusal("one of the two compared cells is not a number")
        numbers = [v.number for v in values]
        if numbers[0] == numbers[1]:
            return Refusal("the two values are equal")
        pick = numbers.index(max(numbers) if p.direction == "max" else min(numbers))
        row = p.operands[pick][0]
        name = frame.value(row, p.answer_attr)
        cited = [*p.operands, (row, p.answer_attr)]
        return _result([name.text], name.text, cited, frame, p)
    if p.op == "compare_count":
        counts = [len(rows) for _, rows in p.groups]
        if counts[0] == counts[1]:
            return Refusal("both values have as many rows")
        pick = counts.index(max(counts) if p.direction == "max" else min(counts))
        text, rows = p.groups[pick]
        return _result([text], text, [(r, p.answer_attr) for r in rows], frame, p)
    if p.op == "multi":
        [row] = p.rows
        values = [frame.value(row, k) for k in p.measure]
        if any(v is None or not v.text.strip() for v in values):
            return Refusal("one of the cells to read is empty")
        answers = [_number(v.number) if v.numeric else v.text for v in values]
        return _result(answers, ", ".join(v.text for v in values),
                       [(row, k) for k in p.measure], frame, p)
    if p.op == "row_avg":
        [row] = p.rows
        cells = [(row, k) for k in p.measure if (v := frame.value(row, k)) and v.measurable]
        if len(cells) != len(p.measure):
            return Refusal("one of the cells to average is not a number")
        value = _number(round(sum(frame.value(*c).number for c in cells) / len(cells), 6))
        return _computed(value, cells, frame, p, extra_decimals=1)
    if p.op == "count_distinct":
        values = {frame.value(r, p.answer_attr).text for r in p.rows
                  if frame.value(r, p.answer_attr) is not None}
        cited = [(r, p.answer_attr) for r in p.rows if frame.value(r, p.answer_attr)]
        return _result([len(values)], f"{len(values):,}", cited, frame, p)
    if p.op in ("group_sum",):
        [row] = p.rows
        cells = [(row, k) for k in p.measure if frame.value(row, k) is not None]
        numbers = [frame.value(r, k).number for r, k in cells if frame.value(r, k).measurable]
        if len(numbers) != len(p.measure):
            return Refusal("some of the cells to add are empty or not numbers")
        total = _number(sum(numbers))
        return _computed(total, cells, frame, p)
    if p.op in ("sum", "avg", "max", "min"):
        [key] = p.measure
        cells = [(r, key) for r in p.rows
                 if (v := frame.value(r, key)) is not None and v.measurable]
        if not cells:
            return Refusal("no numbers to aggregate in the matching rows")
        named = any(op == "in" for _, op, _ in p.filters)
        if named and len(cells) < len(p.rows):
            # The question named these rows one by one: a blank or non-number is not a zero.
            missing = [frame.row_paths[r][-1] for r in p.rows if (r, key) not in cells]
            return Refusal(f"{frame.attr(key).label} has no number for {', '.join(missing)}")
        numbers = [frame.value(r, k).number for r, k in cells]
        value = {"sum": sum, "avg": lambda xs: sum(xs) / len(xs), "max": max,
                 "min": min}[p.op](numbers)
        value = _number(round(value, 6))
        if p.op in ("max", "min"):
            cells = [c for c in cells if frame.value(*c).number == value]
        return _computed(value, cells, frame, p, extra_decimals=1 if p.op == "avg" else 0)
    if p.op == "count":
        n = len(p.rows)
        cells = [(r, k) for r in p.rows for k in _filter_keys(p) if frame.value(r, k)]
        return _result([n], f"{n:,}", cells, frame, p)
    if p.op in ("argmax", "argmin"):
        [key] = p.measure
        answer = frame.attr(p.answer_attr)
        # A row's name: its whole row path when the answer is a row level ("Q1" under 2023
        # and under 2024 are two rows), else the answer cell; blank names and unranked rows
        # do not count.
        names = [frame.row_paths.get(r) if answer.kind == "level" else v.text.strip()
                 for r in p.rows
                 if (m := frame.value(r, key)) is not None and m.measurable
                 and (v := frame.value(r, p.answer_attr)) is not None and v.text.strip()]
        if len(set(names)) < len(names):
            # "Which product sold the most units?" over one row per sale: the best single row
            # is not the best product; that needs the rows added up per product first.
            return Refusal(f"{answer.label} repeats over the rows, so the most per "
                           f"{answer.label} needs the rows added up per value first, which the "
                           "offline engine does not do")
        scored = [(frame.value(r, key).number, r) for r in p.rows
                  if (v := frame.value(r, key)) is not None and v.measurable]
        if not scored:
            return Refusal("no numbers to rank in the matching rows")
        best = max(n for n, _ in scored) if p.op == "argmax" else min(n for n, _ in scored)
        winners = [r for n, r in scored if n == best]
        names = [frame.value(r, p.answer_attr) for r in winners]
        if any(v is None for v in names):
            return Refusal("the best row has no label")
        texts = [v.text for v in names]
        cited = [(r, key) for r in winners] + [(r, p.answer_attr) for r in winners]
        return _result(texts, ", ".join(texts), cited, frame, p)
    if p.op in ("first", "last", "list"):
        rows = p.rows if p.op == "list" else [p.rows[0] if p.op == "first" else p.rows[-1]]
        values = [frame.value(r, p.answer_attr) for r in rows]
        present = [(r, v) for r, v in zip(rows, values, strict=True) if v and v.text.strip()]
        if not present:
            return Refusal("the rows have no value to report")
        texts = [_number(v.number) if v.numeric else v.text for _, v in present]
        return _result(texts, ", ".join(v.text for _, v in present),
                       [(r, p.answer_attr) for r, _ in present], frame, p)
    if p.op in ("diff", "pct_change"):
        (r1, k1), (r2, k2) = p.operands
        a, b = frame.value(r1, k1), frame.value(r2, k2)
        if a is None or b is None or not a.measurable or not b.measurable:
            return Refusal("one of the two cells is not a number")
        if p.op == "diff":
            value = _number(round(a.number - b.number, 6))
            value = abs(value) if p.absolute else value
            return _computed(value, [(r1, k1), (r2, k2)], frame, p)
        if b.number == 0:
            return Refusal("the base value is zero; a percentage change is undefined")
        value = _number(round((a.number - b.number) / b.number * 100, 2))
        return _result([value], f"{_fmt(value)}%", [(r1, k1), (r2, k2)], frame, p, unit="%")
    return Refusal(f"no computation for {p.op}")


def _filter_keys(p: Plan) -> list[str]:
    return [key for key, _, _ in p.filters if isinstance(key, str)]


def _computed(value: float | int, cells: list[tuple[int, str]], frame: Frame, p: Plan,
              extra_decimals: int = 0) -> Result:
    """A number computed from cells, written as they are written, with their unit."""
    values = [v for c in cells if (v := frame.value(*c)) is not None]
    attrs = [frame.attr(k) for _, k in cells]
    if not all(v.numeric for v in values):
        # Durations and ordinals: their text is not a number's form ("1:23.45", "5th").
        return _result([value], _fmt(value), cells, frame, p)
    return _result([value], shown(value, values, attrs, extra_decimals, frame.title), cells,
                   frame, p,
                   unit=_unit(frame, cells))


def _unit(frame: Frame, cells: list[tuple[int, str]]) -> str | None:
    values = [v for c in cells if (v := frame.value(*c)) is not None]
    return answer_unit(values, [frame.attr(k) for _, k in cells],
                       cell_form([v.text for v in values]), frame.title)


def _result(values: list[str | float | int], display: str, cited: list[tuple[int, str]],
            frame: Frame, p: Plan, unit: str | None = None) -> Result:
    keys = list(dict.fromkeys([a.key for a in frame.levels] + [k for _, k in cited] + p.measure))
    rows = list(dict.fromkeys(r for r, _ in cited)) or p.rows
    table_rows = [[r] + [_cell(frame.value(r, k)) for k in keys] for r in rows[:50]]
    return Result(values, display, cited, ["_row", *keys], table_rows, unit)


def _cell(value: Value | None) -> object:
    if value is None:
        return None
    return _number(value.number) if value.numeric else value.text


def _number(n: float | int | None) -> float | int | None:
    if isinstance(n, float) and n.is_integer() and abs(n) < 1e15:
        return int(n)
    return n


def _fmt(n: float | int | None) -> str:
    if n is None:
        return ""
    if isinstance(n, int):
        return str(n)
    return f"{n:.6g}" if abs(n) < 1e6 else f"{n:.2f}"
