"""Time reading the 100k-cell benchmark table as .xls and .ods against the same as .xlsx.

    python -m bench.formats [--rounds N] [--ingest]

The table is `workloads.workbook_100k` (2,000 rows of 50 numbers under a merged two-row
header), its values written again as .xls (xlwt, the test extra) and .ods (the tests' writer),
with the same merges. Each round reads every format once, in turn, in this process (a warm-up
read of each comes first, so imports and caches are not timed); the median and range over the
rounds are printed in wall and CPU seconds, and each format's ratio to .xlsx within a round.
`--ingest` times `Workspace.add_file` as well (read, tree, views, search index).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

import openpyxl

from bench.workloads import OUT, workbook_100k
from ingest.read import read_file
from storage.workspace import Workspace
from tests.sheet_samples import Sheet, write_ods, write_xls


def same_table(xlsx: Path) -> dict[str, Path]:
    """Return the table as .xlsx, .xls and .ods (the latter two written once, cached)."""
    paths = {".xlsx": xlsx, ".xls": OUT / f"{xlsx.stem}.xls", ".ods": OUT / f"{xlsx.stem}.ods"}
    if not (paths[".xls"].exists() and paths[".ods"].exists()):
        ws = openpyxl.load_workbook(xlsx).active
        cells = {(c.row, c.column): c.value for row in ws.iter_rows() for c in row
                 if c.value is not None}
        merges = [(m.min_row, m.min_col, m.max_row, m.max_col) for m in ws.merged_cells.ranges]
        sheet = Sheet(ws.title, cells, merges)
        write_xls(paths[".xls"], [sheet])
        write_ods(paths[".ods"], [sheet])
    return paths


def timed(run) -> tuple[float, float]:  # noqa: ANN001
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(paths: dict[str, Path], rounds: int, op: str) -> dict[str, list[tuple[float, float]]]:
    def run(path: Path) -> None:
        if op == "read":
            read_file(path)
            return
        with tempfile.TemporaryDirectory() as folder:
            ws = Workspace(Path(folder) / "w")
            try:
                ws.add_file(path)
            finally:
                ws.close()

    for path in paths.values():  # warm-up
        run(path)
    times: dict[str, list[tuple[float, float]]] = {ext: [] for ext in paths}
    for _ in range(rounds):
        for ext, path in paths.items():
            times[ext].append(timed(lambda path=path: run(path)))
    return times


def report(op: str, times: dict[str, list[tuple[float, float]]]) -> None:
    base = times[".xlsx"]
    for ext, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        line = (f"{op:6} {ext:5}  wall {statistics.median(walls):6.3f} s "
                f"({min(walls):.3f}-{max(walls):.3f})  cpu {statistics.median(cpus):6.3f} s")
        if ext != ".xlsx":
            ratio = [c / b[1] for (_, c), b in zip(runs, base, strict=True)]
            line += f"  cpu / .xlsx {statistics.median(ratio):.2f}x " \
                    f"({min(ratio):.2f}-{max(ratio):.2f})"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ingest", action="store_true", help="time Workspace.add_file too")
    args = parser.parse_args()
    paths = same_table(workbook_100k())
    cells = sum(len(g.cells) for g in read_file(paths[".xlsx"]))
    print(f"{cells:,} cells; sizes: " + ", ".join(f"{ext} {p.stat().st_size / 1e6:.1f} MB"
                                                   for ext, p in paths.items()))
    report("read", measure(paths, args.rounds, "read"))
    if args.ingest:
        report("ingest", measure(paths, max(args.rounds - 2, 1), "ingest"))


if __name__ == "__main__":
    main()
