"""Shared fixtures: paths to the sample files and the benchmark tables; Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from agent.calibration import Calibration

# Locally, property tests draw new examples on every run (that is how they find bugs). CI sets
# HYPOTHESIS_PROFILE=ci: the same examples every run, so a landing never fails on a new draw;
# a failure found locally becomes a plain test.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SAMPLES = Path(__file__).parent / "samples"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture(autouse=True)
def prior_confidence(monkeypatch) -> None:
    """Answers keep their planner's prior and the fixed labels: the shipped calibration is
    refitted whenever the rules change (`bench.calibrate fit`), so a test of the rules must not
    depend on its weights. `tests/test_calibration.py` tests calibration itself."""
    monkeypatch.setattr("agent.nodes.current_calibration", Calibration)


def bench_tables() -> list[Path]:
    """Every table file of the benchmark suites beside this repo (empty when absent)."""
    if not BENCH.is_dir():
        return []
    return sorted(p for p in BENCH.glob("*/tables/*") if p.suffix in (".csv", ".xlsx"))
