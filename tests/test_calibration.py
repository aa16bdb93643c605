"""Calibrated confidence: fit on scored answers, shrunk to the prior, and the "not sure" shape
below the threshold (CONTRACTS.md, "Not sure")."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.calibration import Calibration, key
from agent.run import answer_question
from bench.calibrate import fit
from storage.workspace import Workspace


def item(op: str, prior: float, right: bool) -> dict:
    return {"basis": {"op": op, "prior": prior, "planned_by": "rules"}, "right": right,
            "confidence": prior, "answered": True}


def test_a_kind_of_answer_seen_often_gets_its_measured_rate_and_a_rare_one_keeps_its_prior():
    items = [item("sum", 0.9, i % 2 == 0) for i in range(40)] + [item("lookup", 0.8, True)] * 5
    calibration = fit(items)
    assert calibration.counts[key("sum", 0.9)] == (20, 40)
    assert calibration.calibrated("sum", 0.9) == pytest.approx((20 + 4 * 0.9) / 44, abs=1e-3)
    assert calibration.calibrated("count", 0.7) == 0.7  # never seen: the prior
    assert calibration.calibrated("lookup", 0.8) == 0.8  # seen 5 times: still the prior


def test_only_a_kind_measured_often_enough_is_held_back():
    calibration = Calibration({key("sum", 0.9): (7, 11), key("count", 0.9): (8, 30)}, 0.85)
    assert calibration.calibrated("sum", 0.9) == 0.9 and not calibration.unsure("sum", 0.9)
    assert calibration.unsure("count", 0.9)


def test_the_threshold_keeps_the_answers_that_are_right_often_enough():
    items = ([item("lookup", 0.9, True)] * 50 + [item("sum", 0.9, False)] * 30
             + [item("sum", 0.9, True)] * 10)  # both kinds measured more than 20 times
    calibration = fit(items)
    assert calibration.calibrated("lookup", 0.9) >= calibration.threshold
    assert calibration.calibrated("sum", 0.9) < calibration.threshold


def test_below_the_threshold_the_run_says_not_sure_and_what_it_would_answer(
        tmp_path: Path, samples: Path, monkeypatch) -> None:
    monkeypatch.setattr("agent.nodes.current_calibration",
                        lambda: Calibration({key("lookup", 0.9): (5, 40)}, 0.8))
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(samples / "financial.xlsx")
        answer = answer_question(ws, "What was the revenue in Q2?")
    finally:
        ws.close()
    assert answer.answer is None and answer.values == []
    assert answer.error.kind == "low_confidence"
    assert answer.error.message.startswith("Not sure: it would be 620")
    assert answer.tentative.values == [620] and answer.tentative.evidence[0].ref == "C3"
    assert answer.basis.op == "lookup" and answer.confidence < 0.8
