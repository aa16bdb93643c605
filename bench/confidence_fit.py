"""Fit the confidence model (`agent/confidence_model.py`) and its cut-offs on scored answers.

Few answers are scored (a few hundred, a hundred or so wrong), so everything chosen here is
chosen on out-of-fold estimates: answers are split into folds by table (all answers of one
table on one side, as the halves split bench-train), each fold is estimated by a model fitted
on the others, and the split is repeated with other assignments of tables to folds and the
estimates averaged. Fields are added to the model one at a time while one improves the
out-of-fold log loss; the penalty is the one whose estimates are best; the high cut-off is
the lowest at which out-of-fold high answers are right HIGH_PRECISION of the time; the "not
sure" threshold is MEDIUM_CONFIDENCE, since an answer whose calibrated chance is under a half is
likelier wrong than right. The model written is then fitted on every answer.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent.calibration import Calibration
from agent.confidence_model import MAX_SPREAD, Input, Model, Transform
from agent.events import MEDIUM_CONFIDENCE

FEATURES: tuple[tuple[str, Transform], ...] = (
    ("prior", "value"), ("content_words", "log"), ("coverage", "value"),
    ("unmatched_words", "log"), ("rewritten_words", "log"), ("value_matches", "log"),
    ("inexact_values", "log"), ("ambiguous_values", "log"), ("named_rows", "log"),
    ("column_matches", "log"), ("full_column_matches", "log"), ("top_column_score", "value"),
    ("tied_columns", "log"), ("column_score_gap", "value"), ("unused_columns", "log"),
    ("rows_read", "log"), ("rows_share", "value"),
    ("filters", "log"), ("measure_columns", "log"), ("result_values", "log"),
    ("cited_cells", "log"), ("single_cell", "value"), ("numeric_result", "value"),
    ("answer_column_numeric", "value"), ("cited_text_cells", "log"), ("header_depth", "log"),
    ("row_levels", "log"), ("flat_table", "value"), ("table_rows", "log"),
    ("table_columns", "log"), ("op_differs", "value"), ("conditions", "log"),
    ("question_words", "log"),
)
"""The basis fields the model weighs (`AnswerBasis`), and how each is read."""
CATEGORIES = ("op", "asked_op")
"""Text fields, candidates like the features, with one input per value seen at least
MIN_LEVEL times."""
MIN_LEVEL = 10
"""Below this, a value's own weight would fit its few answers rather than its kind."""
FOLDS = 5
REPEATS = 5
PENALTIES = (1.0, 3.0, 10.0, 30.0)
"""L2 strengths tried on the chosen fields (inputs standardised)."""
SELECTION_PENALTY = 3.0
MAX_FIELDS = 8
MIN_GAIN = 0.002
"""Log loss a field must save out of fold to be weighed."""
HIGH_PRECISION = 0.95
"""Out-of-fold precision of high answers on half A: the 95% asked on unseen tables."""
MIN_HIGH = 20
"""A cut-off kept by fewer answers than this is luck, not a measured precision."""


@dataclass(frozen=True)
class Fitted:
    """The calibration to write, and how it did out of fold on half A."""

    calibration: Calibration
    penalty: float
    out_of_fold: list[float]
    """Each answer's averaged out-of-fold estimate, in the order given."""


def inputs_for(bases: list[dict[str, Any]], fields: list[str]) -> list[Input]:
    """The model's inputs for these fields: a number per feature some answer has, one input
    per common value of a text field."""
    transforms = dict(FEATURES)
    out = []
    for name in fields:
        if name in transforms:
            if any(b.get(name) is not None for b in bases):
                out.append(Input(name, transforms[name]))
            continue
        counts = Counter(b.get(name) for b in bases if b.get(name) is not None)
        out += [Input(name, "is", level) for level, n in sorted(counts.items()) if n >= MIN_LEVEL]
    return out


def fit_model(bases: list[dict[str, Any]], right: list[bool], penalty: float,
              fields: list[str]) -> Model:
    """An L2-penalised logistic regression (Newton's method) on standardised inputs."""
    inputs = inputs_for(bases, fields)
    raw = np.array([[np.nan if (v := s.read(b)) is None else v for s in inputs] for b in bases],
                   dtype=float).reshape(len(bases), len(inputs))
    present = np.isfinite(raw)
    means = np.array([c[ok].mean() if ok.any() else 0.0 for c, ok in zip(raw.T, present.T,
                                                                        strict=True)])
    scales = np.array([c[ok].std() if ok.any() else 0.0 for c, ok in zip(raw.T, present.T,
                                                                        strict=True)])
    scales = np.where(scales > 1e-9, scales, 1.0)
    x = np.clip(np.where(present, (raw - means) / scales, 0.0), -MAX_SPREAD, MAX_SPREAD)
    x = np.hstack([np.ones((len(bases), 1)), x])
    y = np.array(right, dtype=float)
    ridge = np.full(x.shape[1], penalty)
    ridge[0] = 0.0  # the intercept is not pulled in
    w = np.zeros(x.shape[1])
    w[0] = np.log((y.sum() + 0.5) / (len(y) - y.sum() + 0.5))
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        gradient = x.T @ (p - y) + ridge * w
        hessian = (x.T * (p * (1 - p))) @ x + np.diag(ridge) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Model(tuple(inputs), tuple(means.tolist()), tuple(scales.tolist()),
                 tuple(w[1:].tolist()), float(w[0]))


def folds(groups: list[str], k: int, salt: int) -> list[int]:
    """Each answer's fold: tables ordered by a salted hash, dealt to k folds in turn."""
    order = sorted(set(groups), key=lambda g: hashlib.sha256(f"{salt}/{g}".encode()).digest())
    fold_of = {g: i % k for i, g in enumerate(order)}
    return [fold_of[g] for g in groups]


def out_of_fold(bases: list[dict[str, Any]], right: list[bool], groups: list[str],
                penalty: float, fields: list[str]) -> list[float]:
    """Each answer's estimate from models that never saw its table, averaged over REPEATS
    assignments of tables to folds."""
    total = np.zeros(len(bases))
    for salt in range(REPEATS):
        assigned = folds(groups, FOLDS, salt)
        for fold in range(FOLDS):
            train = [i for i, f in enumerate(assigned) if f != fold]
            test = [i for i, f in enumerate(assigned) if f == fold]
            if not test:
                continue
            if len({right[i] for i in train}) < 2:
                total[test] += float(np.mean([right[i] for i in train])) if train else 0.5
                continue
            model = fit_model([bases[i] for i in train], [right[i] for i in train], penalty,
                              fields)
            total[test] += [model.probability(bases[i]) for i in test]
    return (total / REPEATS).tolist()


def select(bases: list[dict[str, Any]], right: list[bool], groups: list[str]) -> list[str]:
    """The fields the model weighs, added one at a time while one lowers the out-of-fold log
    loss by MIN_GAIN: with a few dozen wrong answers, every weight beyond the few that carry
    to unseen tables fits noise, so the rest are left out (and a field the rules no longer
    make informative drops out at the next fit)."""
    candidates = [name for name, _ in FEATURES] + list(CATEGORIES)
    chosen: list[str] = []
    best = log_loss(out_of_fold(bases, right, groups, SELECTION_PENALTY, chosen), right)
    while len(chosen) < MAX_FIELDS:
        trials = {name: log_loss(out_of_fold(bases, right, groups, SELECTION_PENALTY,
                                             [*chosen, name]), right)
                  for name in candidates if name not in chosen}
        name = min(trials, key=lambda n: trials[n], default=None)
        if name is None or trials[name] > best - MIN_GAIN:
            break
        chosen.append(name)
        best = trials[name]
    return chosen


def log_loss(estimates: list[float], right: list[bool]) -> float:
    p = np.clip(np.array(estimates), 1e-6, 1 - 1e-6)
    y = np.array(right, dtype=float)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def high_cutoff(estimates: list[float], right: list[bool]) -> float:
    """The lowest estimate such that, at it and at every higher cut kept by at least
    MIN_HIGH answers, the answers at or above the cut are right HIGH_PRECISION of the time;
    above 1 (nothing is high) when there is none. Requiring every higher cut, not just one,
    keeps a lucky run of right answers just below a wrong one from lowering the cut."""
    ranked = sorted(zip(estimates, right, strict=True), reverse=True)
    best, kept_right = 1.01, 0
    for n, (estimate, is_right) in enumerate(ranked, start=1):
        kept_right += is_right
        if n < len(ranked) and ranked[n][0] == estimate:
            continue  # answers of one estimate are labelled together
        if n < MIN_HIGH:
            continue
        if kept_right / n < HIGH_PRECISION:
            break
        best = estimate
    return round(best, 3)


def fit(items: list[dict[str, Any]]) -> Fitted:
    """The calibration for scored answers (`bench/calibrate.py scored`) of half A: fields,
    penalty, cut-offs and model as the module docstring says."""
    bases = [i["basis"] for i in items]
    right = [bool(i["right"]) for i in items]
    groups = [i["group"] for i in items]
    fields = select(bases, right, groups)
    scored_by = {p: out_of_fold(bases, right, groups, p, fields) for p in PENALTIES}
    penalty = min(PENALTIES, key=lambda p: log_loss(scored_by[p], right))
    estimates = scored_by[penalty]
    calibration = Calibration(fit_model(bases, right, penalty, fields),
                              frozenset(b.get("planned_by", "rules") for b in bases),
                              high_cutoff(estimates, right), MEDIUM_CONFIDENCE)
    return Fitted(calibration, penalty, estimates)
