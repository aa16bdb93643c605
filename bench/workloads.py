"""Generate the benchmark inputs (deterministic, cached under bench/out/)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import openpyxl
from openpyxl.styles import Alignment, Font

OUT = Path(__file__).parent / "out"


# Ten regions of five quarters: the data columns B:AY under the two-row header, beside the
# "Item" labels of column A. A workbook's name counts its data cells (rows x DATA_COLUMNS).
REGIONS = 10
QUARTERS = 5
DATA_COLUMNS = REGIONS * QUARTERS


def workbook_100k() -> Path:
    """2,000 rows of 50 data cells (100k) under a two-row header whose top row is merged."""
    # The name carries the shape, so a file cached by an older generator is not reused.
    path = OUT / f"merged_100k_{2_000}x{DATA_COLUMNS}.xlsx"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        write_styled(path, 2_000, seed=7)
    return path


def workbook_1m() -> Path:
    """20,000 rows of 50 data cells (1M) under the same merged two-row header."""
    path = OUT / f"merged_1m_{20_000}x{DATA_COLUMNS}.xlsx"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        write_streamed(path, 20_000, seed=13)
    return path


def write_styled(path: Path, rows: int, seed: int) -> None:
    """`rows` rows of DATA_COLUMNS numbers (floats and integers alternating), bold headers and
    indented labels: the formatting a reader of styles has to handle."""
    rng = random.Random(seed)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for group in range(REGIONS):
        col = 2 + group * QUARTERS
        ws.cell(1, col, f"Region {group}").font = Font(bold=True)
        ws.merge_cells(start_row=1, start_column=col, end_row=1, end_column=col + QUARTERS - 1)
        for k in range(QUARTERS):
            ws.cell(2, col + k, f"Q{k + 1}").font = Font(bold=True)
    for r in range(3, 3 + rows):
        ws.cell(r, 1, f"Item {r}").alignment = Alignment(indent=r % 3)
        for c in range(2, 2 + DATA_COLUMNS):
            ws.cell(r, c, round(rng.random() * 1000, 2) if c % 2 else rng.randint(0, 10**6))
    wb.save(path)


def write_streamed(path: Path, rows: int, seed: int) -> None:
    """`rows` rows of DATA_COLUMNS numbers with no styles, written in openpyxl's write-only
    mode (a 1M-cell workbook would otherwise be built whole in memory first)."""
    rng = random.Random(seed)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    _streamed_header(ws, REGIONS)
    for r in range(rows):
        ws.append([f"Item {r}"] + [rng.randint(0, 10**6) if c % 2 else round(rng.random() * 1e3, 2)
                                   for c in range(DATA_COLUMNS)])
    wb.save(path)


def sized_workbook(folder: Path, cells: int, width: int = DATA_COLUMNS) -> Path:
    """`cells` data cells (integers) in rows of `width` data columns, rounded down to whole
    regions of five quarters under a merged header row, beside an "Item r" label column;
    written streaming into `folder` (once). Same shape at every size, so a question means the
    same."""
    groups = max(1, width // QUARTERS)
    columns = groups * QUARTERS
    path = folder / f"sized_{cells}_{columns}.xlsx"
    if path.exists():  # deterministic, and the name carries the shape
        return path
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(cells)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    _streamed_header(ws, groups)
    for r in range(max(1, cells // columns)):
        ws.append([f"Item {r}"] + [rng.randint(0, 10**6) for _ in range(columns)])
    wb.save(path)
    return path


def _streamed_header(ws, groups: int) -> None:
    """Row 1: "Region g" merged over its five quarters; row 2: the quarters Q1..Q5."""
    for group in range(groups):
        col = 2 + group * QUARTERS
        ws.merged_cells.ranges.add(f"{_letter(col)}1:{_letter(col + QUARTERS - 1)}1")
    ws.append([None] + [f"Region {g}" if k == 0 else None
                        for g in range(groups) for k in range(QUARTERS)])
    ws.append([None] + [f"Q{k + 1}" for _ in range(groups) for k in range(QUARTERS)])


def _letter(col: int) -> str:
    return openpyxl.utils.get_column_letter(col)


def csv_60mb() -> Path:
    """A ~60 MB CSV of mixed text and numbers (quoted fields included)."""
    path = OUT / "big_60mb.csv"
    if path.exists():
        return path
    OUT.mkdir(exist_ok=True)
    rng = random.Random(11)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "city", "amount", "share", "date", "note", "code"])
        row = 0
        while handle.tell() < 60 * 1024 * 1024:
            row += 1
            writer.writerow([row, f"Customer {rng.randint(1, 99999)}",
                             rng.choice(["Zürich", "São Paulo", "New York, NY", "Lyon"]),
                             f"{rng.random() * 1e6:,.2f}", f"{rng.random():.1%}",
                             f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                             "" if row % 3 else "see \"terms\"", rng.randint(100, 999)])
    return path


def csv_1m() -> Path:
    """A CSV of 100,000 rows of 10 filled fields (1M cells): ids, labels, numbers, dates."""
    path = OUT / "cells_1m_100000x10.csv"
    if path.exists():
        return path
    OUT.mkdir(exist_ok=True)
    rng = random.Random(17)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "item", "region", "units", "price", "amount", "share", "date",
                         "rank", "note"])
        for row in range(1, 100_000):
            writer.writerow([row, f"Item {rng.randint(1, 99999)}",
                             rng.choice(["North", "South", "East", "West"]),
                             rng.randint(0, 5000), f"{rng.random() * 100:.2f}",
                             f"{rng.random() * 1e6:,.2f}", f"{rng.random():.1%}",
                             f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                             rng.randint(1, 100), rng.choice(["ok", "late", "n/a"])])
    return path


FLAT_COLUMNS = ("id", "customer", "city", "units", "price", "amount", "share", "date",
                "rank", "status")


def flat_csv(rows: int, path: Path | None = None) -> Path:
    """A flat CSV of `rows` records of the ten `FLAT_COLUMNS` under one header row: serial
    ids, a unique "Customer account 0000001" label, a city (some quoted), integers, decimals,
    thousands-separated amounts, percentages, ISO dates, ranks and a status. 640,000 rows
    are 6.4M cells in about 60 MB."""
    path = path or OUT / f"flat_{rows}x{len(FLAT_COLUMNS)}.csv"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(23)
    cities = ["Zürich", "São Paulo", "New York, NY", "Lyon", "Osaka", "Cape Town"]
    statuses = ["delivered on time", "delivered late", "cancelled", "n/a"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(FLAT_COLUMNS)
        for row in range(1, rows + 1):
            writer.writerow([row, f"Customer account {row:07d}", rng.choice(cities),
                             rng.randint(0, 5000), f"{rng.random() * 100:.2f}",
                             f"{rng.random() * 1e6:,.2f}", f"{rng.random():.1%}",
                             f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                             rng.randint(1, 100), rng.choice(statuses)])
    return path


def tiny_tables(n: int) -> bytes:
    """An HTML page of n two-cell tables (the shape that made ingest quadratic)."""
    tables = "".join(f"<table><tr><td>key {i}</td><td>{i * 7}</td></tr></table>"
                     for i in range(n))
    return f"<html><body>{tables}</body></html>".encode()
