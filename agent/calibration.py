"""Calibrated confidence: the chance an answer is right on a table the rules were not tuned on.

A planner's own confidence is a prior set by hand per rule. `agent/calibration.json` holds a
model of how answers' features (`agent/features.py`, on `AnswerBasis`) predict whether they
are right (`agent/confidence_model.py`), fitted on half A of the tuning split (README,
"Benchmarks"), and two cut-offs chosen on its out-of-fold predictions there: `high`, at and
above which an answer is labelled high (such answers were right at least 95% of the time on
tables left out of the fit), and `threshold`, below which the run says "not sure" and what it
would have answered. Answers of a planner the fit never measured (a model's plan) keep their
prior and are never held back. A file without a model (written before it existed) leaves every
answer at its prior with the fixed labels of `agent/events.py`.
`python -m bench.calibrate fit` writes the file from an eval of half A; nothing else does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from agent.confidence_model import Model
from agent.events import HIGH_CONFIDENCE, AnswerBasis, confidence_label

_IN_WORDS = {
    "prior": "kind of computation",
    "column_score_gap": "how closely another column matched",
    "top_column_score": "how loosely its column matched",
    "cited_cells": "number of cells it reads",
    "header_depth": "header levels",
    "row_levels": "row levels",
    "rows_share": "share of the table's rows",
    "tied_columns": "columns matched as well",
}
"""Features as a reader says them, in a "not sure" ("mostly for its kind of computation");
the rest read well with their underscores as spaces ("unmatched words")."""


@dataclass(frozen=True)
class Calibration:
    """The fitted model (None: priors stand), the planners it measured, and the cut-offs."""

    model: Model | None = None
    planners: frozenset[str] = frozenset()
    high: float = HIGH_CONFIDENCE
    threshold: float = 0.0

    def _measured(self, basis: AnswerBasis) -> bool:
        return self.model is not None and basis.planned_by in self.planners

    def calibrated(self, basis: AnswerBasis) -> float:
        """The chance this answer is right: the model's estimate when it measured answers of
        this planner, else the planner's prior."""
        if not self._measured(basis):
            return basis.prior
        return round(self.model.probability(basis.model_dump()), 3)  # type: ignore[union-attr]

    def unsure(self, basis: AnswerBasis) -> bool:
        """Whether the answer is measured, and likely enough wrong, to be held back. An
        answer unlike any the fit saw (`Model.beyond`: a whole column of a 1M-cell table) is
        given with its low label rather than held back on the fit's extrapolation."""
        return self._measured(basis) and self.calibrated(basis) < self.threshold \
            and not self.model.beyond(basis.model_dump())  # type: ignore[union-attr]

    def label(self, confidence: float) -> Literal["high", "medium", "low"]:
        """The label the chat shows, with the fitted high cut-off."""
        return confidence_label(confidence, high=self.high)

    def weakest(self, basis: AnswerBasis, n: int = 2) -> list[str]:
        """The features that lower this answer's confidence most, in words ("unmatched
        words", "op: count"), for a "not sure" to say why."""
        if not self._measured(basis):
            return []
        moves = self.model.contributions(basis.model_dump())  # type: ignore[union-attr]
        return [_IN_WORDS.get(name, name.replace("_", " ").replace("=", ": "))
                for name, move in sorted(moves.items(), key=lambda kv: kv[1])[:n] if move < 0]

    def to_json(self) -> dict:
        return {"high": self.high, "threshold": self.threshold,
                "planners": sorted(self.planners),
                **({"model": self.model.to_json()} if self.model is not None else {})}

    @classmethod
    def from_json(cls, doc: dict) -> Calibration:
        if "model" not in doc:
            return cls()  # a file from before the model: priors and fixed labels
        return cls(Model.from_json(doc["model"]), frozenset(doc.get("planners", ["rules"])),
                   float(doc.get("high", HIGH_CONFIDENCE)), float(doc.get("threshold", 0.0)))


@lru_cache(maxsize=1)
def current() -> Calibration:
    """The calibration shipped with the engine."""
    text = resources.files("agent").joinpath("calibration.json").read_text(encoding="utf-8")
    return Calibration.from_json(json.loads(text))
