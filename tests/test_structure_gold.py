"""The hand-labelled structure gold is well-formed, and its scorer runs with consistent counts.

No detection accuracy is asserted here: the gold measures the detector, it must not tune it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import openpyxl
import pytest

from bench.structure_eval import GOLD_PATH, evaluate, format_report

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"

pytestmark = pytest.mark.skipif(not BENCH.is_dir(), reason=f"no benchmark at {BENCH}")


def _gold() -> dict:
    return json.loads(GOLD_PATH.read_text(encoding="utf-8"))


def _sheet_sizes(path: Path) -> dict[str, tuple[int, int]]:
    """Sheet name -> (rows, columns) as the file itself states them (not via the reader)."""
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        return {path.stem: (len(rows), max((len(r) for r in rows), default=0))}
    workbook = openpyxl.load_workbook(path, read_only=True)
    try:
        return {ws.title: (ws.max_row, ws.max_column) for ws in workbook.worksheets}
    finally:
        workbook.close()


def test_gold_is_well_formed() -> None:
    gold = _gold()
    assert gold["schema_version"] == 1
    tables = gold["tables"]
    assert tables
    seen = set()
    sizes: dict[str, dict[str, tuple[int, int]]] = {}
    for entry in tables:
        assert set(entry) == {"file", "sheet", "first_data_row", "header_rows", "header_cols",
                              "note"}, entry
        path = BENCH / entry["file"]
        assert path.is_file(), entry["file"]
        if entry["file"] not in sizes:
            sizes[entry["file"]] = _sheet_sizes(path)
        assert entry["sheet"] in sizes[entry["file"]], (entry["file"], entry["sheet"])
        n_rows, n_cols = sizes[entry["file"]][entry["sheet"]]
        rows, cols, first = entry["header_rows"], entry["header_cols"], entry["first_data_row"]
        for numbers in (rows, cols):
            assert all(isinstance(x, int) and not isinstance(x, bool) for x in numbers), entry
            assert numbers == sorted(set(numbers)), entry
        assert isinstance(first, int) and 1 <= first <= n_rows, entry
        assert all(1 <= r <= n_rows for r in rows), entry
        assert all(1 <= c < n_cols for c in cols), entry  # a value column lies right of them
        assert first > max(rows, default=0), entry
        assert isinstance(entry["note"], str) and entry["note"].strip(), entry
        key = (entry["file"], entry["sheet"], first)
        assert key not in seen, key
        seen.add(key)


def test_evaluate_counts_are_consistent() -> None:
    result = evaluate(BENCH, GOLD_PATH)
    n = result["tables"]
    assert n == len(_gold()["tables"])
    k = result["both_exact"]
    k_rows, k_cols = result["header_rows_exact"], result["header_cols_exact"]
    assert 0 <= k <= min(k_rows, k_cols)
    assert max(k_rows, k_cols) <= n
    assert 0 <= result["unmatched"] <= n - k
    assert len(result["misses"]) == n - k
    for miss in result["misses"]:
        assert {"file", "sheet", "gold", "found"} <= set(miss)
    report = format_report(result)
    assert report[0].startswith(f"structure detection: both exact {k}/{n}")
    assert len(report) == 1 + len(result["misses"])
