"""Paired rounds: every operation of a comparison once per round, round after round, so a
change of machine load hits baseline and candidate alike; ratios are taken within a round.

Run one after the other instead, the same openpyxl baseline read 0.66 s in one section and
0.94 s in the next on this shared 2-core machine, which flipped a verdict.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def interleaved(operations: Sequence[str], rounds: int, run: Callable[[str], T]
                ) -> dict[str, list[T]]:
    """Run each operation once per round, in the given order within each round; return each
    operation's results in round order."""
    results: dict[str, list[T]] = {name: [] for name in operations}
    for _ in range(rounds):
        for name in operations:
            results[name].append(run(name))
    return results


@dataclass(frozen=True)
class RatioStats:
    """The per-round ratios candidate / baseline: median, lowest and highest."""

    median: float
    low: float
    high: float
    rounds: int

    def __str__(self) -> str:
        return f"{self.median:.2f}x [{self.low:.2f}-{self.high:.2f}]"


def ratio_stats(candidate: Sequence[float], baseline: Sequence[float]) -> RatioStats:
    """Ratios of rounds paired by index (round i of the candidate over round i of the
    baseline), never of medians taken apart."""
    if len(candidate) != len(baseline) or not candidate:
        raise ValueError("ratios need the same, non-zero number of rounds on both sides")
    ratios = [c / b for c, b in zip(candidate, baseline, strict=True)]
    return RatioStats(statistics.median(ratios), min(ratios), max(ratios), len(ratios))
