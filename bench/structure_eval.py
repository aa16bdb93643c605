"""Score the structure detector against the hand-labelled gold: `python -m bench.structure_eval`.

`bench/structure_gold.json` lists benchmark tables with their header rows, header columns and
first data row, labelled by looking at the cells (never from detector output or from benchmark
questions). For each gold table the detected table on the same sheet is the one whose region
holds the gold first data row and overlaps the gold header columns; its header rows and header
columns are compared for exact equality.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.cli import parser

GOLD_PATH = Path(__file__).with_name("structure_gold.json")
BENCH_DIR = Path(__file__).resolve().parents[2] / "shared" / "bench"


def _detect(path: Path) -> dict[str, list[Any]]:
    """Sheet name -> the detector's tables on that sheet."""
    from ingest.read import read_file
    from ingest.structure import analyse_grid

    found: dict[str, list[Any]] = {}
    for grid in read_file(str(path)):
        found.setdefault(grid.sheet, []).extend(analyse_grid(grid.materialize()))
    return found


def _overlap(a1: int, a2: int, b1: int, b2: int) -> int:
    return max(0, min(a2, b2) - max(a1, b1) + 1)


def _match(gold: dict[str, Any], tables: list[Any]) -> Any | None:
    """The detected table whose region holds the gold first data row and overlaps its columns."""
    row = gold["first_data_row"]
    rows = [t for t in tables if t.region.top <= row <= t.region.bottom]
    if not rows:
        return None
    cols = gold["header_cols"]
    if not cols:
        return min(rows, key=lambda t: (t.region.left, t.region.top))
    lo, hi = min(cols), max(cols) + 1  # the label columns and the first value column after them
    overlapping = [t for t in rows if _overlap(t.region.left, t.region.right, lo, hi) > 0]
    if not overlapping:
        return None
    return max(overlapping, key=lambda t: (_overlap(t.region.left, t.region.right, lo, hi),
                                           t.region.left <= hi <= t.region.right,
                                           -t.region.left))


def _describe(table: Any) -> dict[str, Any]:
    data_rows = [d.cell.row for d in table.data]
    return {"region": table.region_ref,
            "first_data_row": min(data_rows) if data_rows else None,
            "header_rows": sorted(table.header_rows),
            "header_cols": sorted(table.header_cols)}


def evaluate(bench_dir: Path, gold_path: Path) -> dict[str, Any]:
    """Count exact matches of header rows / header columns between the gold and the detector.

    A detected table matched by two or more gold tables (the detector merged tables that the
    gold keeps apart) counts as a miss for each of them.
    """
    gold = json.loads(Path(gold_path).read_text(encoding="utf-8"))
    detected: dict[str, dict[str, list[Any]] | str] = {}
    pairs: list[tuple[dict[str, Any], dict[str, Any], Any, dict[str, Any] | None]] = []
    for entry in gold["tables"]:
        want = {"first_data_row": entry["first_data_row"],
                "header_rows": sorted(entry["header_rows"]),
                "header_cols": sorted(entry["header_cols"])}
        file = entry["file"]
        if file not in detected:
            try:
                detected[file] = _detect(Path(bench_dir) / file)
            except Exception as exc:  # a reader failure is a miss, not a crash of the report
                detected[file] = f"{type(exc).__name__}: {exc}"
        sheets = detected[file]
        if isinstance(sheets, str):
            pairs.append((entry, want, None, {"error": sheets}))
            continue
        table = _match(want, sheets.get(entry["sheet"], []))
        pairs.append((entry, want, table, _describe(table) if table is not None else None))
    uses: dict[int, int] = {}
    for _, _, table, _ in pairs:
        if table is not None:
            uses[id(table)] = uses.get(id(table), 0) + 1

    rows_ok = cols_ok = both_ok = unmatched = 0
    misses: list[dict[str, Any]] = []
    for entry, want, table, found in pairs:
        miss = {"file": entry["file"], "sheet": entry["sheet"], "gold": want, "found": found}
        if table is None or found is None:
            unmatched += 1
            misses.append(miss)
            continue
        shared = uses[id(table)] - 1
        if shared:
            found["shared_with"] = shared
        rows_same = not shared and found["header_rows"] == want["header_rows"]
        cols_same = not shared and found["header_cols"] == want["header_cols"]
        rows_ok += rows_same
        cols_ok += cols_same
        if rows_same and cols_same:
            both_ok += 1
        else:
            misses.append(miss)
    return {"tables": len(pairs), "header_rows_exact": rows_ok, "header_cols_exact": cols_ok,
            "both_exact": both_ok, "unmatched": unmatched, "misses": misses}


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.0f}%" if n else "n/a"


def format_report(result: dict[str, Any]) -> list[str]:
    n = result["tables"]
    lines = [f"structure detection: both exact {result['both_exact']}/{n} "
             f"({_pct(result['both_exact'], n)}), header rows {result['header_rows_exact']}/{n}, "
             f"header cols {result['header_cols_exact']}/{n}"]
    for miss in result["misses"]:
        gold, found = miss["gold"], miss["found"]
        where = f"{miss['file']} [{miss['sheet']}] row {gold['first_data_row']}"
        want = f"gold rows {gold['header_rows']} cols {gold['header_cols']}"
        if found is None:
            got = "no detected table holds that row"
        elif "error" in found:
            got = f"read failed: {found['error']}"
        else:
            got = (f"found {found['region']} rows {found['header_rows']} "
                   f"cols {found['header_cols']}")
            if found.get("shared_with"):
                got += f" (one table for this and {found['shared_with']} other gold table(s))"
        lines.append(f"  miss {where}: {want}; {got}")
    return lines


def main() -> int:
    if not BENCH_DIR.is_dir():
        print(f"structure detection: skipped, no benchmark at {BENCH_DIR}")
        return 0
    for line in format_report(evaluate(BENCH_DIR, GOLD_PATH)):
        print(line)
    return 0


if __name__ == "__main__":
    parser("bench.structure_eval", __doc__).parse_args()
    sys.exit(main())
