"""Shared fixtures: paths to the sample files and the benchmark tables; Hypothesis profiles."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from agent.calibration import Calibration
from agent.run import answer_question
from storage.workspace import Workspace

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


@pytest.fixture
def app_url(tmp_path) -> Iterator[str]:
    """The app served on a free port with its own data directory (the browser tests)."""
    from bench.browser_harness import APP, serve

    with serve(APP, tmp_path / "data", tmp_path / "server.log") as url:
        yield url


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where a browser test's screenshots go (a failing wait saves one there)."""
    path = tmp_path / "screenshots"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def prior_confidence(monkeypatch) -> None:
    """Answers keep their planner's prior and the fixed labels: the shipped calibration is
    refitted whenever the rules change (`bench.calibrate fit`), so a test of the rules must not
    depend on its weights. `tests/test_calibration.py` tests calibration itself."""
    monkeypatch.setattr("agent.nodes.current_calibration", Calibration)


@pytest.fixture
def ask(tmp_path: Path) -> Iterator[Callable]:
    """Answer a question over one file of its own workspace: a CSV's text, or a path."""
    opened: list[Workspace] = []

    def run(source: str | Path, question: str):
        path = source if isinstance(source, Path) else tmp_path / f"t{len(opened)}.csv"
        if not isinstance(source, Path):
            path.write_text(source, encoding="utf-8")
        ws = Workspace(tmp_path / f"ws{len(opened)}")
        opened.append(ws)
        ws.add_file(path)
        return answer_question(ws, question)

    yield run
    for ws in opened:
        ws.close()


def bench_tables() -> list[Path]:
    """Every table file of the benchmark suites beside this repo (empty when absent)."""
    if not BENCH.is_dir():
        return []
    return sorted(p for p in BENCH.glob("*/tables/*") if p.suffix in (".csv", ".xlsx"))
