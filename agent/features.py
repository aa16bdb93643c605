"""What an answer's computation looked like, as numbers calibration can weigh (`AnswerBasis`).

Each feature describes how the answer was reached, never which table or which words: how much
of the question the table explained and how (exactly, or through another form of a word), how
many columns and rows competed, how much the plan read and returned, and the table's shape.
So a weight fitted on half A of the tuning split carries to tables it has never seen.
`agent/calibration.py` turns them into the answer's confidence.
"""

from __future__ import annotations

from typing import Any

from agent.cell_scan import NOT_NUMERIC
from agent.column_cells import cited_keys
from agent.column_facts import cells_scan
from agent.frame import POINT_READS, Frame
from agent.grounding import Grounding
from agent.plan import Plan
from agent.question import Analysis
from agent.results import Result
from agent.text import stem


def answer_features(grounding: Grounding | None, plan: Plan, result: Result, frame: Frame,
                    analysis: Analysis) -> dict[str, Any]:
    """The features of one answer, by `AnswerBasis` field name."""
    out = {**_plan_features(plan, result, frame), **_table_features(frame),
           **_question_features(analysis, plan)}
    if grounding is not None:
        out.update(_grounding_features(grounding))
        if grounding.frame.table == plan.table.id:
            out.update(_unused(grounding, plan, result))
    return out


def _unused(g: Grounding, plan: Plan, result: Result) -> dict[str, Any]:
    """Columns the question names in full that the computation neither computes on, reads
    nor filters by: a count where a named amount should be summed, or the wrong one of two
    named columns, leaves such a name behind."""
    used = {*plan.measure, *(k for f in plan.filters for k in f.columns), *cited_keys(result.cited),
            *(k for _, k in plan.operand_cells)}
    if plan.answer_column:
        used.add(plan.answer_column)
    return {"unused_columns": sum(1 for m in g.attrs if m.full and not used & set(m.attrs))}


def _grounding_features(g: Grounding) -> dict[str, Any]:
    content = sorted(g.content)
    # A word the grounding rewrote to the table's own form ("purchasing" for "Purchase",
    # "Feb" for "February") is a weaker tie than a word the table writes as asked.
    rewritten = sum(1 for i in content if g.raw_words and g.q_words[i] != stem(g.raw_words[i]))
    scores = [m.score for m in g.attrs]
    top = scores[0] if scores else 0.0
    # One phrase found in several columns: the rules picked one reading of it.
    by_phrase: dict[frozenset[int], set[str]] = {}
    for v in g.values:
        by_phrase.setdefault(v.positions, set()).add(v.attr)
    return {
        "content_words": len(content),
        "coverage": round(g.coverage, 3),
        "unmatched_words": len(g.content - g.explained),
        "rewritten_words": rewritten,
        "value_matches": len(g.values),
        "inexact_values": sum(1 for v in g.values if not v.exact),
        "ambiguous_values": sum(1 for keys in by_phrase.values() if len(keys) > 1),
        "named_rows": len(set().union(*(v.rows for v in g.values))) if g.values else 0,
        "column_matches": len(g.attrs),
        "full_column_matches": sum(1 for m in g.attrs if m.full),
        "top_column_score": round(top, 3),
        "tied_columns": sum(1 for s in scores if abs(s - top) < 1e-9),
        "column_score_gap": round(top - scores[1], 3) if len(scores) > 1 else round(top, 3),
    }


def _plan_features(plan: Plan, result: Result, frame: Frame) -> dict[str, Any]:
    answer_key = plan.answer_column
    return {
        "rows_read": len(plan.rows),
        "rows_share": round(len(plan.rows) / frame.row_count, 3) if frame.row_count else None,
        "filters": len(plan.filters),
        "measure_columns": len(plan.measure),
        "result_values": len(result.values),
        "cited_cells": len(result.cited),
        "single_cell": len(result.cited) == 1,
        "numeric_result": all(isinstance(v, (int, float)) for v in result.values),
        "answer_column_numeric": (frame.attr(answer_key).numeric
                                  if answer_key and any(a.key == answer_key
                                                        for a in frame.attrs) else None),
        # Cells read as they are written (a lookup of a text cell) against computed numbers.
        "cited_text_cells": _text_cells(frame, result.cited),
    }


def _text_cells(frame: Frame, cells: list[tuple[int, str]]) -> int:
    """How many of the cells are no numbers: counted in SQL when they are many cells of a
    column the frame has not read (an aggregate's)."""
    scanned = cells_scan(frame, cells, POINT_READS)
    if scanned is None:
        return sum(1 for v in frame.values_at(cells) if v is not None and not v.numeric)
    scan, col = scanned
    return scan.count(col, NOT_NUMERIC)


def _table_features(frame: Frame) -> dict[str, Any]:
    depth = max((len(a.path) for a in frame.data_attrs), default=0)
    return {
        "header_depth": depth,
        "row_levels": len(frame.levels),
        "flat_table": depth <= 1 and len(frame.levels) <= 1,
        "table_rows": frame.row_count,
        "table_columns": len(frame.data_attrs),
    }


def _question_features(analysis: Analysis, plan: Plan) -> dict[str, Any]:
    return {
        "asked_op": analysis.op,
        # The lexicon asked one thing and the rules computed another ("sum" over a stated total
        # is a lookup): right sometimes, but a reading the question did not state.
        "op_differs": analysis.op != plan.op,
        "conditions": len(analysis.conditions),
        "question_words": len(analysis.text.split()),
    }
