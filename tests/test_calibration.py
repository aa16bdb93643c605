"""Calibrated confidence: the model over an answer's features, its fit out of fold by table,
the high and "not sure" cut-offs, and files and answers from before the model existed
(CONTRACTS.md, "Not sure")."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent.calibration import Calibration, current
from agent.confidence_model import Input, Model
from agent.events import MEDIUM_CONFIDENCE, AnswerBasis
from agent.run import answer_question
from bench import calibrate
from bench.confidence_fit import fit, high_cutoff
from storage.workspace import Workspace
from tablelens.evaluation.halves import half_of


def model(weight: float = -1.0, intercept: float = 1.0) -> Model:
    """One input, unmatched_words as log(1 + n), mean 0.5 and scale 0.5."""
    return Model((Input("unmatched_words", "log"),), (0.5,), (0.5,), (weight,), intercept)


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_the_model_weighs_standardised_inputs_and_reads_an_absent_one_at_its_mean():
    m = model()
    assert m.probability({"unmatched_words": 0}) == pytest.approx(sigmoid(1 + 1.0))
    assert m.probability({"unmatched_words": math.e - 1}) == pytest.approx(sigmoid(1 - 1.0))
    assert m.probability({}) == pytest.approx(sigmoid(1.0))  # absent: the mean, no move
    level = Model((Input("op", "is", "count"),), (0.25,), (0.5,), (-2.0,), 0.0)
    assert level.probability({"op": "count"}) < level.probability({"op": "lookup"})
    assert Model.from_json(json.loads(json.dumps(level.to_json()))) == level


def test_an_input_far_beyond_what_the_fit_saw_counts_no_more_than_three_spreads():
    m = model()  # log(1 + n): mean 0.5, scale 0.5, so 3 spreads is log(1 + n) = 2
    at_edge = m.probability({"unmatched_words": math.exp(2.0) - 1})
    assert at_edge == pytest.approx(sigmoid(1 - 3.0))
    assert m.probability({"unmatched_words": 2000}) == pytest.approx(at_edge)
    assert m.probability({"unmatched_words": math.exp(1.5) - 1}) > at_edge  # within: as is


def test_the_calibration_gives_the_model_chance_labels_with_its_cut_off_and_holds_back():
    calibration = Calibration(model(), frozenset({"rules"}), high=0.85, threshold=0.6)
    clean = AnswerBasis(op="lookup", prior=0.9, unmatched_words=0)
    loose = AnswerBasis(op="lookup", prior=0.9, unmatched_words=3)
    assert calibration.calibrated(clean) == pytest.approx(sigmoid(2.0), abs=1e-3)
    assert calibration.label(calibration.calibrated(clean)) == "high"  # 0.881 >= 0.85
    assert calibration.label(0.84) == "medium" and calibration.label(0.4) == "low"
    assert not calibration.unsure(clean) and calibration.unsure(loose)
    assert calibration.weakest(loose) == ["unmatched words"]
    by_model = AnswerBasis(op="lookup", prior=0.7, planned_by="model", unmatched_words=3)
    assert calibration.calibrated(by_model) == 0.7 and not calibration.unsure(by_model)


def test_an_old_calibration_file_leaves_priors_and_fixed_labels():
    old = {"threshold": 0.883, "counts": {"rules|sum|0.90": [7, 11]}}
    calibration = Calibration.from_json(old)
    basis = AnswerBasis(op="sum", prior=0.9)
    assert calibration.model is None
    assert calibration.calibrated(basis) == 0.9 and not calibration.unsure(basis)
    assert calibration.label(0.8) == "high" and calibration.label(0.79) == "medium"


def test_an_old_basis_without_features_loads_and_is_weighed_as_an_average_answer():
    basis = AnswerBasis.model_validate({"op": "count", "prior": 0.9, "planned_by": "rules"})
    assert basis.coverage is None and "coverage" not in basis.model_dump(exclude_none=True)
    calibration = Calibration(model(), frozenset({"rules"}))
    assert calibration.calibrated(basis) == pytest.approx(sigmoid(1.0), abs=1e-3)


def test_the_high_cut_off_holds_at_every_higher_cut():
    estimates = [0.99 - i * 0.01 for i in range(50)]  # best first
    right = [True] * 20 + [False] + [True] * 9 + [False] * 20
    cut = high_cutoff(estimates, right)
    kept = [r for e, r in zip(estimates, right, strict=True) if e >= cut]
    assert len(kept) == 30 and sum(kept) == 29  # the next, wrong, would fall below 95%
    # Two wrong answers among the first 20: a later run of right ones does not make up for it.
    early = [True] * 18 + [False] * 2 + [True] * 30
    assert high_cutoff(estimates, early) > 1
    assert high_cutoff(estimates[:10], right[:10]) > 1  # too few to measure: nothing is high


def test_a_fitted_calibration_holds_back_the_answers_likelier_wrong_than_right():
    calibration = fit(synthetic()).calibration
    assert calibration.threshold == MEDIUM_CONFIDENCE
    loose = AnswerBasis(op="lookup", prior=0.9, unmatched_words=2, question_words=8)
    clean = AnswerBasis(op="lookup", prior=0.9, unmatched_words=0, question_words=8)
    assert calibration.unsure(loose) and not calibration.unsure(clean)


def synthetic(n_tables: int = 60) -> list[dict]:
    """Scored answers where unmatched words predict wrong ones, four per table."""
    items = []
    for t in range(n_tables):
        for k in range(4):
            unmatched = (t + k) % 3
            right = unmatched == 0 or (unmatched == 1 and (t + k) % 2 == 0)
            items.append({"group": f"s/table{t}.csv", "right": right,
                          "basis": {"op": "lookup", "prior": 0.9, "planned_by": "rules",
                                    "unmatched_words": unmatched,
                                    "question_words": 5 + (t * 7 + k) % 11}})
    return items


def test_the_fit_finds_the_predictive_feature_and_separates_right_from_wrong():
    fitted = fit(synthetic())
    calibration = fitted.calibration
    fields = {i.field for i in calibration.model.inputs}  # type: ignore[union-attr]
    assert "unmatched_words" in fields
    clean = AnswerBasis(op="lookup", prior=0.9, unmatched_words=0, question_words=8)
    loose = AnswerBasis(op="lookup", prior=0.9, unmatched_words=2, question_words=8)
    assert calibration.calibrated(clean) > 0.9 > calibration.calibrated(loose)
    assert calibration.label(calibration.calibrated(clean)) == "high"
    assert calibration.planners == {"rules"} and len(fitted.out_of_fold) == 240


def test_fit_reads_eval_predictions_of_half_a_and_writes_the_calibration(
        tmp_path: Path, monkeypatch, capsys) -> None:
    root, preds = tmp_path / "train", tmp_path / "preds"
    (root / "s").mkdir(parents=True)
    preds.mkdir()
    questions, lines = [], []
    for i, item in enumerate(synthetic(120)):
        q = {"id": f"q{i}", "table": item["group"].split("/", 1)[1], "question": "?",
             "answers": ["1"]}
        if half_of("s", q) != "A":
            continue
        questions.append(q)
        lines.append({"id": q["id"], "answer": "1" if item["right"] else "2",
                      "values": [1 if item["right"] else 2], "confidence": 0.9,
                      "confidence_label": "high", "basis": item["basis"]})
    (root / "s" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    (preds / "s.jsonl").write_text("".join(json.dumps(p) + "\n" for p in lines))
    target, untuned = tmp_path / "calibration.json", tmp_path / "untuned.jsonl"
    monkeypatch.setattr(calibrate, "CALIBRATION_FILE", target)
    monkeypatch.setattr(calibrate, "UNTUNED_FILE", untuned)
    assert calibrate.main(["fit", str(preds), str(root)]) == 0
    written = Calibration.from_json(json.loads(target.read_text()))
    assert written.model is not None and 0 < written.high <= 1
    assert "half A, out of fold" in capsys.readouterr().out
    # The same answers kept as an untuned rules' are added to the next fit.
    assert calibrate.main(["keep-untuned", str(preds), str(root)]) == 0
    assert len(untuned.read_text().splitlines()) == len(lines)
    assert calibrate.main(["fit", str(preds), str(root)]) == 0
    assert f"and {len(lines)} of the untuned rules" in capsys.readouterr().out
    calibrate.reliability(calibrate.scored(preds, root, "A"), "synthetic")
    report = capsys.readouterr().out
    assert f"labelled high: {len(lines)} of {len(lines)} answers given" in report


def test_below_the_threshold_the_run_says_not_sure_and_what_it_would_answer(
        tmp_path: Path, samples: Path, monkeypatch) -> None:
    unlikely = Model((), (), (), (), -2.0)  # every answer about 12% right
    monkeypatch.setattr("agent.nodes.current_calibration",
                        lambda: Calibration(unlikely, frozenset({"rules"}), threshold=0.5))
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
    assert answer.basis.op == "lookup" and answer.confidence < 0.5
    assert answer.basis.coverage is not None and answer.basis.header_depth is not None


def test_the_shipped_calibration_has_a_model_and_cut_offs_in_range():
    shipped = current()
    assert shipped.model is not None and shipped.planners == {"rules"}
    assert 0.5 <= shipped.high <= 1.01 and shipped.threshold == MEDIUM_CONFIDENCE
    assert 0.0 < shipped.calibrated(AnswerBasis(op="lookup", prior=0.9)) < 1.0


def test_the_wilson_interval_brackets_the_share_and_narrows_with_more_answers():
    low, high = calibrate.wilson(6, 8)
    assert low == pytest.approx(0.409, abs=0.005) and high == pytest.approx(0.929, abs=0.005)
    wide, narrow = calibrate.wilson(15, 20), calibrate.wilson(150, 200)
    assert wide[0] < narrow[0] < 0.75 < narrow[1] < wide[1]
    assert calibrate.wilson(0, 0) == (0.0, 1.0) and calibrate.wilson(5, 5)[1] == 1.0


def test_suite_precision_judges_only_suites_answered_often_enough(capsys):
    items = ([{"suite": "big", "answered": True, "right": k < 27} for k in range(30)]
             + [{"suite": "small", "answered": True, "right": True} for _ in range(5)]
             + [{"suite": "small", "answered": False, "right": False}])
    calibrate.suite_precision(items, "half B")
    out = capsys.readouterr().out
    assert "big" in out and "n   30  right   27   90.0%" in out and "meets the 85% goal" in out
    assert "small          n    5  right    5  100.0%" in out and "no verdict" in out


def test_an_answer_beyond_what_the_fit_saw_is_given_low_rather_than_held_back():
    # Cited cells weigh against an answer; the fit saw up to about e^4 of them.
    cells = Model((Input("cited_cells", "log"),), (2.0,), (0.6,), (-1.5,), 0.0)
    calibration = Calibration(cells, frozenset({"rules"}), threshold=0.5)
    seen = AnswerBasis(op="sum", prior=0.9, cited_cells=20)
    unseen = AnswerBasis(op="sum", prior=0.9, cited_cells=2000)
    assert calibration.calibrated(seen) < 0.5 and calibration.unsure(seen)
    assert calibration.calibrated(unseen) < 0.5 and not calibration.unsure(unseen)
    assert calibration.label(calibration.calibrated(unseen)) == "low"
