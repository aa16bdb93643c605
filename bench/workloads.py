"""Generate the benchmark inputs (deterministic, cached under bench/out/)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import openpyxl
from openpyxl.styles import Alignment, Font

OUT = Path(__file__).parent / "out"


def workbook_100k() -> Path:
    """A 2,000 x 50 sheet (100k cells) under a two-row header whose top row is merged."""
    path = OUT / "merged_100k.xlsx"
    if path.exists():
        return path
    OUT.mkdir(exist_ok=True)
    rng = random.Random(7)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for group in range(10):
        col = 2 + group * 5
        ws.cell(1, col, f"Region {group}").font = Font(bold=True)
        ws.merge_cells(start_row=1, start_column=col, end_row=1, end_column=col + 4)
        for k in range(5):
            ws.cell(2, col + k, f"Q{k + 1}").font = Font(bold=True)
    for r in range(3, 2003):
        ws.cell(r, 1, f"Item {r}").alignment = Alignment(indent=r % 3)
        for c in range(2, 51):
            ws.cell(r, c, round(rng.random() * 1000, 2) if c % 2 else rng.randint(0, 10**6))
    wb.save(path)
    return path


def workbook_1m() -> Path:
    """A 20,000 x 50 sheet (1M cells) with the same merged two-row header, written streaming."""
    path = OUT / "merged_1m.xlsx"
    if path.exists():
        return path
    OUT.mkdir(exist_ok=True)
    rng = random.Random(13)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    for group in range(10):
        col = 2 + group * 5
        ws.merged_cells.ranges.add(f"{_letter(col)}1:{_letter(col + 4)}1")
    ws.append([None] + [f"Region {g}" if k == 0 else None for g in range(10) for k in range(5)])
    ws.append([None] + [f"Q{k + 1}" for _ in range(10) for k in range(5)])
    for r in range(20_000):
        ws.append([f"Item {r}"] + [rng.randint(0, 10**6) if c % 2 else round(rng.random() * 1e3, 2)
                                   for c in range(49)])
    wb.save(path)
    return path


def sized_workbook(folder: Path, cells: int, width: int) -> Path:
    """About `cells` cells: `width` columns ("Item r", then regions of five quarters under a
    merged header row) and as many rows as that takes, written streaming into `folder`."""
    path = folder / f"sized_{cells}.xlsx"
    rng = random.Random(cells)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Data")
    groups = max(1, (width - 1) // 5)
    for group in range(groups):
        col = 2 + group * 5
        ws.merged_cells.ranges.add(f"{_letter(col)}1:{_letter(col + 4)}1")
    ws.append([None] + [f"Region {g}" if k == 0 else None for g in range(groups) for k in range(5)])
    ws.append([None] + [f"Q{k + 1}" for _ in range(groups) for k in range(5)])
    for r in range(max(1, cells // (groups * 5 + 1))):
        ws.append([f"Item {r}"] + [rng.randint(0, 10**6) for _ in range(groups * 5)])
    wb.save(path)
    return path


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
