"""Run one measured operation in this process and print JSON: median seconds and peak memory.

Used as `python -m bench.measure OPERATION PATH`; each call is a fresh process, so peak memory
(ru_maxrss) belongs to that operation alone (minus the interpreter and imports, measured first).
"""

from __future__ import annotations

import csv
import json
import resource
import statistics
import sys
import tempfile
import time

import openpyxl

from ingest.limits import Limits
from ingest.read import read_file
from storage.workspace import Workspace

# The benchmark files are bigger than the default per-file cell limit on purpose.
_LIMITS = Limits(max_cells=10**9)


def _openpyxl(path: str) -> None:
    openpyxl.load_workbook(path, data_only=True)


def _read(path: str) -> None:
    read_file(path, limits=_LIMITS)


def _read_and_iterate(path: str) -> None:
    for grid in read_file(path, limits=_LIMITS):
        for _ in grid.iter_cells():
            pass


def _ingest(path: str) -> None:
    """Read, build the trees and write the views: everything an upload does."""
    with tempfile.TemporaryDirectory() as tmp:
        Workspace(tmp).add_file(path, limits=_LIMITS)


def _csv_module(path: str) -> None:
    with open(path, newline="", encoding="utf-8") as handle:
        for _ in csv.reader(handle):
            pass


OPERATIONS = {"openpyxl": _openpyxl, "read": _read, "read+iterate": _read_and_iterate,
              "csv": _csv_module, "ingest": _ingest}


def main() -> None:
    operation, path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        OPERATIONS[operation](path)
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": statistics.median(times), "peak_mb": peak / 1024,
                      "extra_mb": (peak - before) / 1024}))


if __name__ == "__main__":
    main()
