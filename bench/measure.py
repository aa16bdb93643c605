"""Run one measured operation once in this process and print JSON: wall and CPU seconds, and
memory from /proc/self/status.

Used as `python -m bench.measure OPERATION PATH`; `python -m bench` starts one such process
per operation and round (bench/compare.py). The operation's imports happen before the clock
starts. Prints {"skipped": "<package> not installed"} when a baseline's package is missing,
never a number for it.

Memory: `peak_mb` is the process's VmHWM at the end (imports included), `extra_mb` how far the
operation's own peak rose above the resident memory it started from: VmHWM is reset to VmRSS
after the imports, so the next peak is the operation's (bench/procstatus.py).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable

from bench import procstatus

Run = Callable[[str], object]


class Missing(Exception):
    """A baseline's package is not installed (`pip install -e '.[bench]'`)."""


def _needs(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise Missing(package)


def _openpyxl() -> Run:
    import openpyxl

    return lambda path: openpyxl.load_workbook(path, data_only=True)


def _openpyxl_read_only() -> Run:
    import openpyxl

    def run(path: str) -> None:
        # read_only parses nothing until the rows are walked; the cells carry their styles.
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for _ in row:
                    pass
        wb.close()

    return run


def _pandas_excel() -> Run:
    _needs("pandas", "pandas")
    import pandas

    return lambda path: pandas.read_excel(path, sheet_name=None, header=None, engine="openpyxl")


def _calamine() -> Run:
    _needs("python_calamine", "python-calamine")
    from python_calamine import CalamineWorkbook

    def run(path: str) -> None:
        # Values and merged ranges: the part of a workbook calamine reads (no styles).
        wb = CalamineWorkbook.from_path(path)
        for name in wb.sheet_names:
            sheet = wb.get_sheet_by_name(name)
            sheet.merged_cell_ranges  # noqa: B018  (read, to be paid for)
            for row in sheet.iter_rows():
                for _ in row:
                    pass

    return run


def _csv_module() -> Run:
    def run(path: str) -> None:
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.reader(handle):
                for _ in row:
                    pass

    return run


def _pandas_csv() -> Run:
    _needs("pandas", "pandas")
    import pandas

    return lambda path: pandas.read_csv(path, header=None, dtype=str, keep_default_na=False)


def _limits():
    from ingest.limits import Limits

    # The benchmark files are bigger than the default per-file cell limit on purpose.
    return Limits(max_cells=10**9)


def _read() -> Run:
    from ingest.read import read_file

    limits = _limits()
    return lambda path: read_file(path, limits=limits)


def _read_and_iterate() -> Run:
    from ingest.read import read_file

    limits = _limits()

    def run(path: str) -> None:
        # A streamed grid (CSV) produces its cells only here: read alone validates and indexes.
        for grid in read_file(path, limits=limits):
            for _ in grid.iter_cells():
                pass

    return run


def _ingest() -> Run:
    from storage.workspace import Workspace

    limits = _limits()

    def run(path: str) -> None:
        """Read, build the trees and write the views: everything an upload does."""
        with tempfile.TemporaryDirectory() as tmp:
            Workspace(tmp).add_file(path, limits=limits)

    return run


def _sqlite_utils_insert() -> Run:
    _needs("sqlite_utils", "sqlite-utils")
    from sqlite_utils.cli import cli

    def run(path: str) -> None:
        """`sqlite-utils insert DB rows FILE --csv`, in this process (its imports done)."""
        with tempfile.TemporaryDirectory() as tmp:
            cli.main(["insert", f"{tmp}/data.db", "rows", path, "--csv"],
                     standalone_mode=False)

    return run


def _flat_ingest() -> Run:
    from storage.workspace import Workspace

    def run(path: str) -> None:
        """Store a large CSV with the default limits (a flat table), kept in the workspace
        that BENCH_WORKSPACE names when set, so it can be asked about afterwards."""
        folder = os.environ.get("BENCH_WORKSPACE")
        if folder:
            Workspace(folder).add_file(path)
            return
        with tempfile.TemporaryDirectory() as tmp:
            Workspace(tmp).add_file(path)

    return run


OPERATIONS: dict[str, Callable[[], Run]] = {
    "openpyxl": _openpyxl, "openpyxl read_only": _openpyxl_read_only,
    "pandas.read_excel": _pandas_excel, "calamine": _calamine,
    "csv": _csv_module, "pandas.read_csv": _pandas_csv,
    "read": _read, "read+iterate": _read_and_iterate, "ingest": _ingest,
    "sqlite-utils insert": _sqlite_utils_insert, "flat ingest": _flat_ingest,
}


def measure(operation: str, path: str) -> dict[str, object]:
    """Import what `operation` needs, then run it once on `path` and measure it."""
    try:
        run = OPERATIONS[operation]()
    except Missing as missing:
        return {"skipped": f"{missing} not installed"}
    imports_peak, before = procstatus.memory_mib()
    reset = procstatus.reset_peak()
    wall, cpu = time.perf_counter(), time.process_time()
    run(path)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak, _ = procstatus.memory_mib()
    # Without the reset, VmHWM still holds the imports' peak: the rise above it is all we know.
    extra = peak - (before if reset else imports_peak)
    return {"wall_s": wall, "cpu_s": cpu, "peak_mb": max(peak, imports_peak),
            "extra_mb": max(extra, 0.0)}


def main() -> None:
    operation, path = sys.argv[1], sys.argv[2]
    print(json.dumps(measure(operation, path)))


if __name__ == "__main__":
    main()
