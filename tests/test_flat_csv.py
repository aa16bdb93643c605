"""Large flat CSV files streamed into SQLite (storage/flat_table.py, issue 21 part 2): the
flat path stores what the full analysis stores, its typing in SQL agrees with `parse_raw`,
its limits refuse clearly within bounded memory, a stop leaves the workspace as it was, and a
60 MB file is answered."""

from __future__ import annotations

import csv
import json
import random
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from agent.prepare import add_prepared
from agent.run import answer_question
from bench import workloads
from bench.stop_latency import leftovers
from ingest.errors import IngestStopped, NotEnoughDisk, TooManyCells, TooManyRows
from ingest.limits import Limits
from ingest.read import read_file
from ingest.values import parse_raw
from storage import flat_table
from storage.flat_table import _cast, _fast_number
from storage.workspace import Workspace

from .test_ingest_stop import StopAt

FLAT = Limits(flat_csv_cells=0)
"""Every CSV takes the flat path."""

TRICKY = ["12", "-5", "0", "-0", "007", "0.5", "00.5", "5.", ".5", "12.50", "1e5", "+3",
          "1,234", "1,234.56", "12,34.5", "1,2345.6", "-1,234.56", "$1,200", "(1,234)",
          "12.3%", " 12 ", "2019", "2024-03-05", "Mar 2021", "5th", "1:23.45", "1.2 million",
          "123456789012345", "12345678901234567890", "n/a", "", "  ", "1.2.3", "3 kg"]


def write_sample(path: Path, rows: int = 300) -> Path:
    """A flat table whose columns hold numbers in many spellings, text, blanks and a scale."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "units", "mixed", "share", "when", "code", "note",
                         "Revenue (in millions)"])
        for i in range(1, rows + 1):
            row = [i, f"  Item {i} " if i % 17 == 0 else f"Item {i}", i * 37 % 1000,
                   TRICKY[i % len(TRICKY)], f"{i % 100 / 10:.1f}%", f"2024-{i % 12 + 1:02d}-01",
                   f"{i % 50:03d}", "" if i % 3 else ("late" if i % 2 else " "),
                   f"{i * 1.25:,.2f}"]
            writer.writerow(row[:7] if i % 41 == 0 else row)  # a few ragged records
    return path


def stored(ws: Workspace) -> dict[str, object]:
    """Everything a table's readers use, comparable between two workspaces."""
    conn = ws.db.conn
    [table] = ws.table_ids()
    info = ws.table(table)
    wide = f'"{info.wide}"'
    catalog = conn.execute("SELECT id, region, header_rows, header_cols, orientation, "
                           "column_paths, row_levels, wide, long, n_rows, title FROM catalog"
                           ).fetchall()
    return {
        "cells": conn.execute("SELECT * FROM cells ORDER BY grid, row, col").fetchall(),
        "wide": conn.execute(f"SELECT * FROM {wide} ORDER BY _row").fetchall(),
        "wide types": conn.execute(f"PRAGMA table_info({wide})").fetchall(),
        "long": conn.execute(f'SELECT * FROM "{info.long}" ORDER BY row, col').fetchall(),
        "row paths": conn.execute("SELECT * FROM row_paths ORDER BY table_id, row, col"
                                  ).fetchall(),
        "col paths": conn.execute("SELECT * FROM col_paths ORDER BY table_id, col").fetchall(),
        "catalog": catalog,
        "tree": info.tree,
        "search": sorted(conn.execute("SELECT table_id, type, text, path, ref "
                                      "FROM search_index").fetchall(), key=repr),
    }


def test_a_flat_table_stores_what_the_full_analysis_stores(tmp_path):
    path = write_sample(tmp_path / "sales.csv")
    full, flat = Workspace(tmp_path / "full"), Workspace(tmp_path / "flat")
    full.add_file(path)
    shown: list[tuple[float, str]] = []
    flat.add_file(path, limits=FLAT, progress=lambda f, stage: shown.append((f, stage)))
    # Progress only moves forward, through the flat table's own stages.
    assert [f for f, _ in shown] == sorted(f for f, _ in shown)
    assert {"streaming rows", "typing values", "writing cells"} <= {s for _, s in shown}
    expected, got = stored(full), stored(flat)
    assert expected["cells"] and expected["search"]
    for part, value in expected.items():
        assert got[part] == value, part


def test_the_sql_typing_of_plain_numbers_agrees_with_parse_raw():
    conn = sqlite3.connect(":memory:")
    texts = TRICKY + [f"{n:,}" for n in (999, 1000, 123456, 1234567)] + [
        f"{x:.2f}" for x in (0.01, 99.99, 123456.78)] + ["1,234,", ",123", "1,,234", "-12.5"]
    fast = 0
    for text in texts:
        is_fast, number = conn.execute(f"SELECT {_fast_number('?1')}, {_cast('?1')}",
                                       (text,)).fetchone()
        if is_fast:
            fast += 1
            value = parse_raw(text, text)
            assert (value.kind, value.unit, value.number) == ("number", None, number), text
            assert type(value.number) is type(number), text
    assert fast >= 15


def test_a_small_csv_keeps_the_full_analysis(tmp_path):
    # Two tables under a title, below the flat threshold: found as two tables, as before.
    path = tmp_path / "two.csv"
    path.write_text("Report\n\na,b\nx,1\ny,2\n\nc,d\nz,3\nw,4\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    ws.add_file(path)
    assert len(ws.table_ids()) == 2


def test_a_large_csv_that_is_not_flat_is_analysed_whole_or_refused(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("Report\n\na,b\nx,1\ny,2\n\nc,d\nz,3\nw,4\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(TooManyCells) as caught:
        ws.add_file(path, limits=Limits(flat_csv_cells=5, max_cells=10))
    message = str(caught.value)
    assert message.startswith("two.csv: the file has 13 filled cells and is not one flat "
                              "table") and "TABLELENS_MAX_CELLS" in message
    assert ws.sources() == []
    ws.add_file(path, limits=Limits(flat_csv_cells=5))
    assert len(ws.table_ids()) == 2


def test_the_row_limit_refuses_a_long_file_early_in_bounded_memory(tmp_path):
    # 3 million one-field records (about 9 MB): refused at the limit, before the end.
    path = tmp_path / "long.csv"
    path.write_bytes(b"n\n" + b"7\n" * 3_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(TooManyRows) as caught:
            read_file(path, limits=Limits(max_csv_rows=1_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(caught.value) == ("long.csv: the file has more than 1,000,000 rows. Split it "
                                 "into smaller files, or raise TABLELENS_MAX_CSV_ROWS.")
    assert peak < 20 * 2**20


def test_a_hostile_file_gets_a_clear_message_in_bounded_memory(tmp_path):
    # A 20 MB record of delimiters: one row far wider than any sheet.
    path = tmp_path / "wide.csv"
    path.write_bytes(b"," * 20_000_000 + b"\n1\n")
    ws = Workspace(tmp_path / "ws")
    tracemalloc.start()
    try:
        with pytest.raises(Exception) as caught:
            ws.add_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(caught.value).startswith("wide.csv: ") and "columns" in str(caught.value)
    assert peak < 400 * 2**20
    assert ws.sources() == []


def test_too_little_disk_space_is_refused_before_writing(tmp_path, monkeypatch):
    path = write_sample(tmp_path / "sales.csv")
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)

    class Usage:
        free = 1000

    monkeypatch.setattr(flat_table.shutil, "disk_usage", lambda place: Usage())
    with pytest.raises(NotEnoughDisk) as caught:
        ws.add_file(path, limits=FLAT)
    assert str(caught.value).startswith("sales.csv: storing it needs about ")
    assert "TABLELENS_DATA_DIR" in str(caught.value)
    assert leftovers(ws) == before


def test_a_stop_while_streaming_leaves_the_workspace_as_it_was(tmp_path):
    path = write_sample(tmp_path / "sales.csv", rows=3_000)
    ws = Workspace(tmp_path / "ws")
    ws.add_file(write_sample(tmp_path / "other.csv", rows=20))  # something to keep
    before = leftovers(ws)
    counting = StopAt()
    Workspace(tmp_path / "count").add_file(path, limits=FLAT, cancel=counting)
    stages: set[str] = set()
    for share in (0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.95):
        seen: list[str] = []
        with pytest.raises(IngestStopped):
            ws.add_file(path, limits=FLAT, cancel=StopAt(int(counting.looks * share)),
                        progress=lambda f, stage, seen=seen: seen.append(stage))
        assert leftovers(ws) == before
        stages.add(seen[-1])
    # Stops landed in the head's analysis and in the flat table's own SQL (the streaming
    # itself checks every 1,024 records: a few checks for this file).
    assert {"structure", "writing cells"} <= stages
    info, new = add_prepared(ws, path, limits=FLAT)
    assert new and len(ws.table_ids(info.sha256)) == 1


def test_the_stop_inside_the_flat_tables_sql_is_caught_by_the_watch(tmp_path):
    path = write_sample(tmp_path / "sales.csv", rows=3_000)
    ws = Workspace(tmp_path / "ws")
    flag = StopAt()
    stopped_in: list[str] = []

    def progress(fraction: float, stage: str) -> None:
        if stage == "writing cells":  # the one INSERT ... SELECT of every cell
            stopped_in.append(stage)
            flag.at = flag.looks + 1

    with pytest.raises(IngestStopped):
        ws.add_file(path, limits=FLAT, cancel=flag, progress=progress)
    assert stopped_in and ws.sources() == []


def test_correcting_the_header_of_a_large_flat_table_is_refused_clearly(tmp_path):
    path = write_sample(tmp_path / "sales.csv")
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(path, limits=FLAT)
    table = ws.table(ws.table_ids()[0])
    with pytest.raises(TooManyCells) as caught:
        ws.restructure(info.sha256, table.sheet, table.k, [1, 2], None,
                       limits=Limits(max_cells=100))
    assert str(caught.value).startswith("sales.csv: correcting a header analyses the whole "
                                        "sheet, and 'sales' has 2,")
    assert ws.table(table.id).version == 1
    corrected = ws.restructure(info.sha256, table.sheet, table.k, [1], None)
    assert corrected.version == 2 and corrected.n_rows == 300


def test_a_flat_table_is_answered_with_citations(tmp_path):
    path = workloads.flat_csv(20_000, tmp_path / "orders.csv")
    ws = Workspace(tmp_path / "ws")
    info, _ = add_prepared(ws, path, limits=FLAT)
    [table] = ws.table_ids(info.sha256)
    conn = ws.db.conn
    wide = f'"{ws.table(table).wide}"'

    def sql(query: str, *params: object) -> object:
        return conn.execute(query.format(wide=wide), params).fetchone()[0]

    def cited(column: int, number: object) -> str:
        return sql("SELECT ref FROM cells WHERE table_id = ? AND col = ? AND number = ? "
                   "ORDER BY row", table, column, number)

    best = answer_question(ws, "Which customer has the highest amount?")
    top = sql('SELECT max("amount") FROM {wide}')
    assert best.values == [sql('SELECT "customer" FROM {wide} WHERE "amount" = ?', top)]
    assert cited(6, top) in {e.ref for e in best.evidence}
    highest = answer_question(ws, "What is the highest price?")
    assert highest.values == [sql('SELECT max("price") FROM {wide}')]
    lookup = answer_question(ws, "What is the city of Customer account 0000007?")
    assert lookup.values == [sql('SELECT "city" FROM {wide} WHERE _row = 8')]
    assert [e.ref for e in lookup.evidence] == ["C8"]
    average = answer_question(ws, "What is the average price?")
    assert average.values[0] == pytest.approx(sql('SELECT avg("price") FROM {wide}'), abs=0.01)
    total = answer_question(ws, "What is the total price?")
    assert total.values[0] == pytest.approx(sql('SELECT sum("price") FROM {wide}'), abs=0.01)
    assert total.evidence_sets  # every cell of the column, as ranges


CHANCE_PAIR = ["975.87", "567.98", "407.65", "896.3", "707.54", "188.06"]
"""Six East amounts of the 30 MB CSV a tester uploaded, in its order: each of 975.87 and 896.3
is the sum of the two after it to 0.1%, by chance, as in any few hundred thousand amounts."""


def write_sales(path: Path, rows: int) -> tuple[Path, float]:
    """A CSV of the 30 MB file's shape (id, date, region, product, units, revenue with up to
    two decimals), its East rows holding `CHANCE_PAIR` from the middle on; and the East rows'
    average revenue."""
    rng = random.Random(21)
    pair = list(CHANCE_PAIR)
    east: list[float] = []
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "date", "region", "product", "units", "revenue"])
        for i in range(1, rows + 1):
            region = rng.choice(["North", "East", "South", "West"])
            revenue = f"{rng.uniform(0, 1000):.2f}".rstrip("0").rstrip(".")
            if region == "East":
                if pair and i > rows // 2:
                    revenue = pair.pop(0)
                east.append(float(revenue))
            writer.writerow([i, f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                             region, rng.choice("ABCD"), rng.randint(1, 100), revenue])
    return path, sum(east) / len(east)


def test_a_flat_csv_is_read_and_answered_as_the_whole_analysis_reads_it(tmp_path):
    # Stored whole (120,000 cells) and as a flat table, the same decisions and the same
    # average. The East amounts hold a pair of sums that follow each other by chance among
    # the few that any 5,000 amounts hold: the 30 MB file's average was refused for that
    # (its rows "mix groups with their members") while a 5 MB file was answered.
    path, average = write_sales(tmp_path / "sales.csv", 20_000)
    assert Limits().flat_csv_cells > 20_001 * 6  # the default limits analyse it whole
    question = "What is the average revenue for region East?"
    answers, decisions = [], []
    for name, limits in (("whole", Limits()), ("flat", FLAT)):
        ws = Workspace(tmp_path / name)
        add_prepared(ws, path, limits=limits)
        decisions.append(ws.db.conn.execute(
            "SELECT region, header_rows, header_cols, column_paths, row_levels, n_rows "
            "FROM catalog").fetchall())
        answers.append(answer_question(ws, question))
        ws.close()
    whole, flat = answers
    assert decisions[0] == decisions[1]
    assert whole.values == [pytest.approx(average, abs=0.001)]
    assert (flat.answer, flat.values) == (whole.answer, whole.values)


@pytest.mark.slow
def test_a_60_mb_csv_is_stored_in_full(tmp_path):
    path = workloads.flat_csv(640_000, tmp_path / "flat.csv")
    assert path.stat().st_size > 55 * 2**20
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(path)  # the default limits: 6.4M cells, far past TABLELENS_MAX_CELLS
    [table] = ws.table_ids(info.sha256)
    conn = ws.db.conn
    wide = f'"{ws.table(table).wide}"'
    assert conn.execute(f"SELECT count(*) FROM {wide}").fetchone()[0] == 640_000
    [(cells,)] = conn.execute("SELECT count(*) FROM cells WHERE table_id = ?",
                              [table]).fetchall()
    assert cells == 640_001 * 10  # every field of every record, and the header row
    # The last record, as the file writes it, at its refs.
    with open(path, newline="", encoding="utf-8") as handle:
        *_, last = csv.reader(handle)
    stored = conn.execute("SELECT col, ref, text FROM cells WHERE table_id = ? AND row = ? "
                          "ORDER BY col", [table, 640_001]).fetchall()
    assert [text for _, _, text in stored] == last
    assert [ref for _, ref, _ in stored][:2] == ["A640001", "B640001"]
    [(best, top)] = conn.execute(f'SELECT "customer", "amount" FROM {wide} '
                                 'ORDER BY "amount" DESC LIMIT 1').fetchall()
    assert best.startswith("Customer account ") and top > 999_000
    # The status column's distinct values are in the search index, each at its first cell.
    found = conn.execute(
        "SELECT s.type, s.ref FROM search_index_fts f JOIN search_index s ON s.rowid = f.rowid "
        "WHERE search_index_fts MATCH ? AND s.table_id = ?", ["cancelled", table]).fetchall()
    [(first,)] = conn.execute("SELECT min(row) FROM cells WHERE table_id = ? AND col = 10 AND "
                              "text = 'cancelled'", [table]).fetchall()
    assert found == [("value", f"J{first}")]
    assert json.loads(conn.execute("SELECT column_paths FROM catalog").fetchone()[0])
