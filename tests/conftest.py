"""Shared fixtures: paths to the sample files and the benchmark tables."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"


@pytest.fixture
def samples() -> Path:
    return SAMPLES


def bench_tables() -> list[Path]:
    """Every table file of the benchmark suites beside this repo (empty when absent)."""
    if not BENCH.is_dir():
        return []
    return sorted(p for p in BENCH.glob("*/tables/*") if p.suffix in (".csv", ".xlsx"))
