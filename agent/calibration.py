"""Calibrated confidence: what share of answers like this one were right on tables the rules
were not tuned on.

A planner's own confidence is a prior set by hand per rule. `agent/calibration.json` holds,
per operation and prior (rounded to 0.05), how many answers of half A of the tuning split
(README, "Benchmarks") were right; `calibrated` shrinks that rate towards the prior, so a rare
kind of answer keeps about its prior and a common one gets its measured rate. Answers of a
kind measured often enough (MIN_MEASURED) whose rate is below `threshold` are not given: the
run says "not sure" and what it would have answered.
`bench/calibrate.py fit` writes the file from an eval of half A; nothing else does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

PRIOR_WEIGHT = 4.0
"""How many answers the prior counts as: with fewer measured than this, it dominates."""
MIN_MEASURED = 20
"""A kind of answer gets its measured rate (and may be held back as "not sure") only when half
A measured at least this many of it: on fewer, a low rate is as likely luck (7 right of 11
sums) as a weakness, and the prior stands."""


def key(op: str, prior: float, planned_by: str = "rules") -> str:
    """The table's key for an answer: operation, prior rounded to 0.05, and planner."""
    return f"{planned_by}|{op}|{round(prior * 20) / 20:.2f}"


@dataclass(frozen=True)
class Calibration:
    """Right and total counts per key, and the answer threshold."""

    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    threshold: float = 0.0

    def calibrated(self, op: str, prior: float, planned_by: str = "rules") -> float:
        """The chance an answer of this kind is right: its measured rate (shrunk towards the
        prior) when half A measured it often enough, else the prior."""
        right, total = self.counts.get(key(op, prior, planned_by), (0, 0))
        if total < MIN_MEASURED:
            return prior
        return round((right + PRIOR_WEIGHT * prior) / (total + PRIOR_WEIGHT), 3)

    def unsure(self, op: str, prior: float, planned_by: str = "rules") -> bool:
        """Whether answers of this kind are measured, and too often wrong, to be given."""
        _, total = self.counts.get(key(op, prior, planned_by), (0, 0))
        return total >= MIN_MEASURED and self.calibrated(op, prior, planned_by) < self.threshold

    def to_json(self) -> dict:
        return {"threshold": self.threshold,
                "counts": {k: list(v) for k, v in sorted(self.counts.items())}}

    @classmethod
    def from_json(cls, doc: dict) -> Calibration:
        counts = {str(k): (int(v[0]), int(v[1])) for k, v in doc.get("counts", {}).items()}
        return cls(counts, float(doc.get("threshold", 0.0)))


@lru_cache(maxsize=1)
def current() -> Calibration:
    """The calibration shipped with the engine."""
    text = resources.files("agent").joinpath("calibration.json").read_text(encoding="utf-8")
    return Calibration.from_json(json.loads(text))
