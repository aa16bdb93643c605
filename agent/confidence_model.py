"""The confidence model: a logistic regression over an answer's features (`AnswerBasis`).

Plain data and plain Python, so the engine needs no numerical library to answer:
`bench/confidence_fit.py` fits the weights, `agent/calibration.json` stores them, and this
module turns a basis into the chance its answer is right. Each input is one basis field, as a
number (a count as log(1 + n), since the tenth row read says less than the second) or, for a
text field such as the operation, one input per value seen often enough when fitting.
Inputs are standardised with the fit's means and scales; a field the basis lacks (a basis
stored before the field existed, or a feature that does not apply) is read at its mean, so it
moves the chance neither way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

MAX_SPREAD = 3.0
"""How many standard deviations from the fit's mean an input may count (fit and answer alike)."""
SIZE_FIELDS = frozenset({"cited_cells", "rows_read", "table_rows", "result_values",
                         "cited_text_cells"})
"""Basis fields that grow with the table rather than with the question's doubts."""
Transform = Literal["log", "value", "is"]
"""How a field becomes a number: log(1 + n) of a count, the number (or flag) as it is, or
1 when a text field has one value (its `level`)."""


@dataclass(frozen=True)
class Input:
    """One input of the model: a basis field and how it is read."""

    field: str
    transform: Transform
    level: str | None = None
    """For "is": the field's value this input is 1 for."""

    @property
    def name(self) -> str:
        return f"{self.field}={self.level}" if self.transform == "is" else self.field

    def read(self, basis: dict[str, Any]) -> float | None:
        """The input's number for a basis (a dict of its fields); None when it is absent."""
        raw = basis.get(self.field)
        if raw is None:
            return None
        if self.transform == "is":
            return 1.0 if raw == self.level else 0.0
        number = float(raw)
        return math.log1p(max(number, 0.0)) if self.transform == "log" else number


@dataclass(frozen=True)
class Model:
    """Standardised inputs, their weights and the intercept."""

    inputs: tuple[Input, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    def row(self, basis: dict[str, Any]) -> list[float]:
        """The standardised inputs of a basis (0 for an absent one: its mean), each held
        within MAX_SPREAD of the mean: the fit saw nothing beyond, so a sum over 2,000 cited
        cells must not count 8 spreads against itself when the fit's largest had 50."""
        out = []
        for spec, mean, scale in zip(self.inputs, self.means, self.scales, strict=True):
            value = spec.read(basis)
            z = 0.0 if value is None else (value - mean) / scale
            out.append(max(-MAX_SPREAD, min(MAX_SPREAD, z)))
        return out

    def beyond(self, basis: dict[str, Any]) -> bool:
        """Whether an input that grows with the table lies past MAX_SPREAD above the fit's
        mean: the fit saw no answer so large (a sum over 2,000 cited cells, when its largest
        had 50), so it cannot say such an answer is likely wrong. (Other inputs past it,
        such as many unmatched words, are as telling as the fit says.)"""
        for spec, mean, scale in zip(self.inputs, self.means, self.scales, strict=True):
            value = spec.read(basis) if spec.field in SIZE_FIELDS else None
            if value is not None and (value - mean) / scale > MAX_SPREAD:
                return True
        return False

    def contributions(self, basis: dict[str, Any]) -> dict[str, float]:
        """How much each input moves this basis's log-odds from an average answer's."""
        return {spec.name: w * x for spec, w, x in zip(self.inputs, self.weights,
                                                       self.row(basis), strict=True)}

    def probability(self, basis: dict[str, Any]) -> float:
        z = self.intercept + sum(self.contributions(basis).values())
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def to_json(self) -> dict[str, Any]:
        return {"intercept": self.intercept,
                "inputs": [{"field": s.field, "transform": s.transform,
                            **({"level": s.level} if s.level is not None else {}),
                            "mean": m, "scale": sc, "weight": w}
                           for s, m, sc, w in zip(self.inputs, self.means, self.scales,
                                                  self.weights, strict=True)]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Model:
        items = doc.get("inputs", [])
        return cls(tuple(Input(i["field"], i["transform"], i.get("level")) for i in items),
                   tuple(float(i["mean"]) for i in items),
                   tuple(float(i["scale"]) for i in items),
                   tuple(float(i["weight"]) for i in items), float(doc.get("intercept", 0.0)))
