"""Wide and long views, the catalog, cell roles and overrides, on real SQLite workspaces."""

from __future__ import annotations

import io
import json
import sqlite3

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlite_utils.db import quote_identifier

from ingest.grid import Cell, Grid
from ingest.structure import Override, analyse_grid
from storage import views
from storage import workspace as workspace_module
from storage.header_tree import ROW_CHUNK, HeaderTree
from storage.records import ColumnInfo, TableInfo
from storage.views import (
    COLUMN_INDEX,
    MAX_NAME_LENGTH,
    apply_structures,
    load_overrides,
    set_override,
    table_id,
    table_id_in,
    wide_plan,
)
from storage.workspace import Workspace, new_workspace_id
from tests.cell_stores import as_schema_9

FIN = "financial__p_l__t0"
HR = "hr__staff__t0"


def _xlsx(rows: list[list[object]], merges: tuple[str, ...] = (), sheet: str = "Data") -> bytes:
    """Build a one-sheet workbook in memory."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for row in rows:
        ws.append(row)
    for merge in merges:
        ws.merge_cells(merge)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _query(ws: Workspace, sql: str, args: list[object] | None = None) -> list[dict]:
    return list(ws.db.query(sql, args or []))


def _sqlite_tables(ws: Workspace) -> set[str]:
    return {r["name"] for r in _query(ws, "SELECT name FROM sqlite_master "
                                          "WHERE type IN ('table', 'view')")}


def _view_tables(ws: Workspace) -> set[str]:
    return {name for name in _sqlite_tables(ws) if name.endswith(("__wide", "__long"))}


@pytest.fixture
def ws(tmp_path):
    workspace = Workspace(tmp_path / "w")
    yield workspace
    workspace.close()


def test_table_ids_follow_the_contract():
    assert table_id("financial", "p_l", 0) == FIN
    assert table_id("report", "sheet_2", 3) == "report__sheet_2__t3"


def test_financial_wide_table_has_path_columns_and_answers_sql(ws, samples):
    ws.add_file(samples / "financial.xlsx")
    columns = [c.name for c in ws.db[f"{FIN}__wide"].columns]
    # Row paths are up to two deep ("Operating Expenses > Salaries"), so two level columns.
    assert columns == ["_row", "level_1", "level_2", "H1 2024 > Q1", "H1 2024 > Q2",
                       "H2 2024 > Q3", "H2 2024 > Q4"]
    rows = _query(ws, f'SELECT * FROM "{FIN}__wide" ORDER BY _row')
    assert [(r["_row"], r["level_1"], r["level_2"]) for r in rows] == [
        (3, "Revenue", None), (5, "Operating Expenses", "Salaries"),
        (6, "Operating Expenses", "Rent"), (7, "Operating Expenses", "Marketing"),
        (8, "Net Income", None)]
    [total] = _query(ws, f'SELECT sum("H1 2024 > Q2") AS s FROM "{FIN}__wide" '
                         "WHERE level_1 = 'Operating Expenses'")
    assert total["s"] == 375


def test_hr_long_table_holds_every_value_with_its_paths(ws, samples):
    ws.add_file(samples / "hr.xlsx")
    [cell] = _query(ws, f'SELECT * FROM "{HR}__long" WHERE row_path_text = ? '
                        "AND col_path_text = 'Years'", ["Engineering > Bo Chen"])
    assert cell["number"] == 7 and cell["value"] == 7 and cell["kind"] == "number"
    assert (cell["table"], cell["sheet"], cell["ref"], cell["row"], cell["col"]) == (
        HR, "Staff", "D3", 3, 4)
    assert cell["row_path"] == '["Engineering", "Bo Chen"]' and cell["col_path"] == '["Years"]'
    assert cell["col_paths"] is None
    [role] = _query(ws, f'SELECT text, number, value FROM "{HR}__long" WHERE ref = ?', ["C3"])
    assert role == {"text": "Tech lead", "number": None, "value": None}
    # The wide table is named by the header cells above the row-header columns.
    assert [c.name for c in ws.db[f"{HR}__wide"].columns] == [
        "_row", "Department", "Name", "Role", "Years"]


def test_catalog_row_describes_the_table(ws, samples):
    info = ws.add_file(samples / "financial.xlsx")
    [row] = ws.tables()
    assert row == ws.table(FIN)
    assert (row.id, row.grid, row.source, row.file_name, row.sheet, row.k, row.region) == (
        FIN, "financial__p_l", info.sha256, "financial.xlsx", "P&L", 0, "A1:E8")
    assert (row.header_rows, row.header_cols, row.orientation) == ((1, 2), (1,), "top")
    assert row.decisions()["header_rows"] == [1, 2] and row.confidence > 0.5
    assert row.repeated_header_rows == () and not row.corrected
    assert row.notes == () and row.title is None
    assert (row.wide, row.wide_note, row.long) == (f"{FIN}__wide", None, f"{FIN}__long")
    assert (row.n_rows, row.version, row.override) == (5, 1, None)
    assert row.row_levels == ("level_1", "level_2")
    assert row.tree.schema_version >= 1
    assert [p.position for p in row.tree.columns.paths] == [2, 3, 4, 5]
    assert row.tree.rows.paths[1].path == ("Operating Expenses", "Salaries")
    assert row.columns[1] == ColumnInfo("H1 2024 > Q2", ("H1 2024", "Q2"), "number", None,
                                        ("620", "230", "50"))
    with pytest.raises(KeyError):
        ws.table("nope__t0")


@pytest.mark.parametrize("sample", ["financial.xlsx", "hr.xlsx", "multi_sheet.xlsx"])
def test_catalog_rows_are_stored_as_before_and_decode_to_the_same_entry(ws, samples, sample):
    info = ws.add_file(samples / sample)
    for grid in ws.grids(info.sha256):
        for structure in analyse_grid(ws.load_grid(grid.id)):
            stored = _query(ws, "SELECT * FROM catalog WHERE id = ?",
                            [table_id_in(grid.id, structure.index)])[0]
            # The JSON columns hold what `TableStructure` states: the tree in layout 2 (its
            # row side in chunks) decodes to the tree as stated, and re-encodes byte for byte.
            tree = json.loads(stored["tree"])
            assert tree["schema_version"] == 2 and tree["decisions"] == structure.decisions()
            assert TableInfo.from_row(stored).tree == HeaderTree.from_dict(structure.tree_json())
            assert stored["decisions"] == json.dumps(structure.decisions(), ensure_ascii=False)
            assert TableInfo.from_row(stored).to_row() == stored


def test_a_catalog_row_from_an_earlier_version_decodes():
    tree = {"schema_version": 1, "decisions": {},
            "columns": {"nodes": [{"id": 0, "text": "Q1", "ref": "B1", "kind": "column",
                                   "parents": [], "children": []}],
                        "paths": [{"col": 2, "path": ["Q1"], "nodes": [0]}]},
            "rows": {"levels": ["Item"], "nodes": [],
                     "paths": [{"row": 2, "path": ["a"], "nodes": []}]}}
    row = {"id": "f__s__t0", "grid": "f__s", "source": "abc", "file_name": "f.xlsx",
           "sheet": "S", "k": 0, "region": "A1:B2", "title": None, "notes": "[]",
           "header_rows": "[1]", "header_cols": "[1]", "orientation": "top",
           "confidence": 0.9, "decisions": '{"header_rows": [1], "header_cols": [1], '
           '"orientation": "top", "confidence": 0.9, "repeated_header_rows": [4]}',
           "column_paths": '[{"name": "Q1", "path": ["Q1"], "type": "number", "unit": null, '
           '"samples": ["5"]}]', "row_levels": '["Item"]', "wide": "f__s__t0__wide",
           "wide_note": None, "long": "f__s__t0__long", "n_rows": 1, "tree": json.dumps(tree),
           "version": 3, "override": '{"header_rows": null, "header_cols": [1]}'}
    info = TableInfo.from_row(row)
    assert info.columns == (ColumnInfo("Q1", ("Q1",), "number", None, ("5",)),)
    assert info.repeated_header_rows == (4,) and info.row_levels == ("Item",)
    assert info.override == Override(None, (1,)) and info.corrected
    assert info.tree.columns.paths[0].position == 2 and info.tree.rows.levels == ("Item",)
    assert info.tree.columns.nodes[0].ref == "B1"


def test_a_long_row_side_is_stored_in_chunks_decoded_only_when_read():
    n = 2 * ROW_CHUNK + 5
    nodes = [{"id": i, "text": f"r{i}", "ref": f"A{i + 2}", "kind": "row", "parents": [],
              "children": []} for i in range(n)]
    paths = [{"row": i + 2, "path": [f"r{i}"], "nodes": [i]} for i in range(n)]
    stated = HeaderTree.from_dict({
        "schema_version": 1, "columns": {"nodes": [], "paths": []},
        "rows": {"levels": ["Item"], "nodes": nodes, "paths": paths}})
    stored = json.loads(json.dumps(stated.to_dict({})))
    assert len(stored["rows"]["chunks"]) == 3
    checks = []
    tree = HeaderTree.from_stored(json.dumps(stored))
    assert tree.columns.paths == ()  # the row side is still text
    assert tree.load_rows(between_chunks=lambda: checks.append(1)) == stated.rows
    assert len(checks) == 3 and tree == stated
    # A check that raises (Stop) ends the decoding between chunks; a later read completes it.
    def stop() -> None:
        raise KeyboardInterrupt
    again = HeaderTree.from_stored(json.dumps(stored))
    with pytest.raises(KeyboardInterrupt):
        again.load_rows(between_chunks=stop)
    assert again.rows.paths[-1] == stated.rows.paths[-1]


def test_cells_get_the_role_and_table_of_their_structure(ws, samples):
    ws.add_file(samples / "financial.xlsx")
    roles = {(r["row"], r["col"]): (r["role"], r["table_id"])
             for r in _query(ws, "SELECT row, col, role, table_id FROM cells")}
    assert roles[(1, 2)] == ("header", FIN)  # the merged "H1 2024"
    assert roles[(5, 1)] == ("header", FIN)
    assert roles[(5, 3)] == ("data", FIN)


def test_title_and_note_cells_get_their_roles_and_empty_cells_none(ws):
    data = _xlsx([["Headcount by team"], [], ["Team", "People"], ["Ops", 4], ["Dev", 9], [],
                  ["Source: HR system"]])
    ws.add_file(io.BytesIO(data), "teams.xlsx")
    [row] = ws.tables()
    assert row.title == "Headcount by team" and row.notes == ("Source: HR system",)
    roles = {r["ref"]: r["role"] for r in _query(ws, "SELECT ref, role FROM cells")}
    assert roles["A1"] == "title" and roles["A7"] == "note" and roles["B4"] == "data"


def test_duplicate_and_messy_headers_get_unique_safe_names(ws):
    data = _xlsx([["Item", "Total", "total", "Total", "Net\n  sales", None],
                  ["a", 1, 2, 3, 4, 5], ["b", 5, 6, 7, 8, 9]])
    ws.add_file(io.BytesIO(data), "dup.xlsx")
    [row] = ws.tables()
    assert [c.name for c in row.columns] == [
        "Total", "total (2)", "Total (3)", "Net sales", "col_F"]
    assert row.columns[3].path == ("Net\n  sales",)  # the path keeps the header text
    assert _query(ws, f'SELECT "total (2)" AS v FROM "{row.wide}" WHERE _row = 3') == [
        {"v": 6}]


def test_merged_data_cells_fill_every_column_and_row_they_span(ws):
    data = _xlsx([["Item", "Q1", "Q2"], ["a", 1, 2], ["b", 30, None], ["c", 40, 3],
                  ["d", None, 4]], merges=("B3:C3", "B4:B5"))
    ws.add_file(io.BytesIO(data), "merged.xlsx")
    [row] = ws.tables()
    wide = {r["_row"]: (r["Q1"], r["Q2"]) for r in _query(ws, f'SELECT * FROM "{row.wide}"')}
    assert wide == {2: (1, 2), 3: (30, 30), 4: (40, 3), 5: (40, 4)}
    [across] = _query(ws, f'SELECT * FROM "{row.long}" WHERE ref = ?', ["B3"])
    assert across["col_path"] == '["Q1"]' and across["col_paths"] == '[["Q1"], ["Q2"]]'
    assert _query(ws, f'SELECT count(*) AS n FROM "{row.long}"') == [{"n": 6}]  # anchors


def test_wide_table_is_skipped_past_the_column_limit(ws, samples, monkeypatch):
    monkeypatch.setattr(views, "MAX_WIDE_COLUMNS", 3)
    ws.add_file(samples / "financial.xlsx")
    row = ws.table(FIN)
    assert row.wide is None and "limit of 3" in row.wide_note
    assert all(c.name is None for c in row.columns)
    assert _view_tables(ws) == {f"{FIN}__long"}
    assert _query(ws, f'SELECT count(*) AS n FROM "{FIN}__long"') == [{"n": 20}]


def test_reapplying_bumps_the_version_and_keeps_other_grids(ws, samples):
    fin = ws.add_file(samples / "financial.xlsx")
    ws.add_file(samples / "hr.xlsx")
    structures = analyse_grid(ws.load_grid("financial__p_l"))  # the same: cells stay right
    with ws.db.atomic():
        apply_structures(ws.db, "financial__p_l", fin.sha256, fin.name, structures, {})
    assert ws.table(FIN).version == 2 and ws.table(HR).version == 1
    assert _view_tables(ws) == {f"{FIN}__wide", f"{FIN}__long", f"{HR}__wide", f"{HR}__long"}
    assert _query(ws, f'SELECT count(*) AS n FROM "{FIN}__long"') == [{"n": 20}]
    assert _query(ws, "SELECT count(*) AS n FROM cells WHERE table_id = ?", [HR]) == [{"n": 27}]


def test_an_override_changes_header_rows_and_paths(ws, samples):
    fin = ws.add_file(samples / "financial.xlsx")
    row = ws.restructure(fin.sha256, "P&L", 0, header_rows=[2], header_cols=None)
    assert row.header_rows == (2,) and row.version == 2
    assert row.override == Override((2,), None) and row.corrected
    assert [c.path for c in row.columns] == [("Q1",), ("Q2",), ("Q3",), ("Q4",)]
    assert [c.name for c in ws.db[f"{FIN}__wide"].columns][-4:] == ["Q1", "Q2", "Q3", "Q4"]
    assert load_overrides(ws.db, fin.sha256, "P&L") == {0: Override((2,), None)}
    with pytest.raises(KeyError):
        ws.restructure(fin.sha256, "P&L", 5, header_rows=[2], header_cols=None)


def _downgrade_to_schema_1(ws: Workspace, table: str) -> None:
    """Give a workspace the shape it had before long views: a long *table*, no typed values
    in `cells`, schema version 1."""
    long, db = f"{table}__long", ws.db
    as_schema_9(db.conn)
    with db.conn:
        db.execute(f'CREATE TABLE "old_long" AS SELECT * FROM "{long}"')
        db.execute(f'DROP VIEW "{long}"')
        db.execute(f'ALTER TABLE "old_long" RENAME TO "{long}"')
        for paths in ("row_paths", "col_paths"):
            db.execute(f"DELETE FROM {paths} WHERE table_id = ?", [table])
        db.execute("DROP INDEX cells_by_column")  # it holds typed columns since schema 6
        for column in ("number", "value", "kind", "unit", "scale", "scale_source", "date",
                       "col_paths"):
            db.execute(f"ALTER TABLE cells DROP COLUMN {column}")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


def test_a_workspace_from_before_long_views_keeps_working_and_restructures(tmp_path, samples):
    old = Workspace(tmp_path / "w")
    fin = old.add_file(samples / "financial.xlsx")
    expected = _query(old, f'SELECT * FROM "{FIN}__long" ORDER BY row, col')
    _downgrade_to_schema_1(old, FIN)
    old.close()
    ws = Workspace(tmp_path / "w")  # upgrades: the typed-value columns come back empty
    assert _query(ws, f'SELECT * FROM "{FIN}__long" ORDER BY row, col') == expected
    assert _query(ws, "SELECT count(kind) AS n FROM cells") == [{"n": 0}]
    ws.restructure(fin.sha256, "P&L", 0, header_rows=None, header_cols=None)
    kinds = _query(ws, "SELECT type FROM sqlite_master WHERE name = ?", [f"{FIN}__long"])
    assert kinds == [{"type": "view"}]
    assert _query(ws, f'SELECT * FROM "{FIN}__long" ORDER BY row, col') == expected
    ws.close()


def test_overrides_are_kept_per_file_sheet_and_region(ws, samples):
    fin = ws.add_file(samples / "financial.xlsx")
    set_override(ws.db, fin.sha256, "P&L", 0, [1, 2], [1])
    set_override(ws.db, fin.sha256, "P&L", 0, [1], None)
    set_override(ws.db, fin.sha256, "P&L", 1, None, [1, 2])
    assert load_overrides(ws.db, fin.sha256, "P&L") == {
        0: Override((1,), None), 1: Override(None, (1, 2))}
    assert load_overrides(ws.db, fin.sha256, "Other") == {}


def test_remove_source_drops_views_catalog_and_overrides(ws, samples):
    fin = ws.add_file(samples / "financial.xlsx")
    ws.add_file(samples / "hr.xlsx")
    ws.restructure(fin.sha256, "P&L", 0, header_rows=[2], header_cols=None)
    ws.remove_source(fin.sha256)
    assert [t.id for t in ws.tables()] == [HR]
    assert _view_tables(ws) == {f"{HR}__wide", f"{HR}__long"}
    assert _query(ws, "SELECT count(*) AS n FROM overrides") == [{"n": 0}]


def test_remove_source_is_one_transaction(ws, samples, monkeypatch):
    fin = ws.add_file(samples / "financial.xlsx")
    ws.restructure(fin.sha256, "P&L", 0, header_rows=[2], header_cols=None)
    real = workspace_module.remove_source_views

    def drop_then_fail(db, sha):
        real(db, sha)
        raise OSError("disk full")

    monkeypatch.setattr(workspace_module, "remove_source_views", drop_then_fail)
    with pytest.raises(OSError, match="disk full"):
        ws.remove_source(fin.sha256)
    assert [t.id for t in ws.tables()] == [FIN]
    assert _view_tables(ws) == {f"{FIN}__wide", f"{FIN}__long"}
    assert _query(ws, "SELECT count(*) AS n FROM overrides") == [{"n": 1}]


@pytest.mark.parametrize("where", ["after", "inside"])
def test_a_failure_while_building_views_leaves_no_trace_of_the_file(ws, samples, monkeypatch,
                                                                    where):
    ws.add_file(samples / "hr.xlsx")
    before = {"tables": _sqlite_tables(ws),
              "cells": _query(ws, "SELECT count(*) AS n FROM cells"),
              "catalog": _query(ws, "SELECT id FROM catalog")}
    if where == "after":  # everything of the file written, then a failure
        real = workspace_module.apply_structures

        def apply_then_fail(*args, **kwargs):
            real(*args, **kwargs)
            raise OSError("disk full")

        monkeypatch.setattr(workspace_module, "apply_structures", apply_then_fail)
    else:  # the wide table exists, the long view's row paths fail half-way

        def exploding_rows(structure):
            yield next(iter(real_rows(structure)))
            raise OSError("disk full")

        real_rows = views._path_rows
        monkeypatch.setattr(views, "_path_rows", exploding_rows)
    with pytest.raises(OSError, match="disk full"):
        ws.add_file(samples / "financial.xlsx")
    assert [s.name for s in ws.sources()] == ["hr.xlsx"]
    assert [g.id for g in ws.grids()] == ["hr__staff"]
    assert {"tables": _sqlite_tables(ws),
            "cells": _query(ws, "SELECT count(*) AS n FROM cells"),
            "catalog": _query(ws, "SELECT id FROM catalog")} == before
    assert len(list(ws.files_dir.iterdir())) == 1


def test_add_file_reports_structure_and_views_stages(ws, samples):
    seen: list[tuple[float, str]] = []
    ws.add_file(samples / "multi_sheet.xlsx", progress=lambda f, s: seen.append((f, s)))
    stages = [s for _, s in seen]
    assert stages[0] == "reading" and {"structure", "views"} <= set(stages)
    fractions = [f for f, _ in seen]
    assert all(0 <= f <= 1 for f in fractions) and fractions == sorted(fractions)


def test_streamed_csv_files_get_views(ws):
    ws.add_file(io.BytesIO(b"city,people\nOslo,700\nBergen,290\n"), "cities.csv")
    [row] = ws.tables()
    assert row.id == "cities__cities__t0"
    assert _query(ws, f'SELECT city, people FROM "{row.wide}" ORDER BY _row') == [
        {"city": "Oslo", "people": 700}, {"city": "Bergen", "people": 290}]


def test_an_older_workspace_gains_role_columns_and_stays_readable(tmp_path):
    root = tmp_path / "old"
    (root / "files").mkdir(parents=True)
    conn = sqlite3.connect(root / "workspace.sqlite")
    conn.executescript(workspace_module._SCHEMA)
    conn.execute("INSERT INTO sources VALUES ('s', 'a.xlsx', 'a', 'xlsx', 1, '2024-01-01')")
    conn.execute("INSERT INTO grids VALUES ('a__s', 's', 0, 'S', 'xlsx', 1, 1, NULL, NULL)")
    conn.execute("INSERT INTO cells (grid, row, col, ref, rowspan, colspan, raw, raw_type, text,"
                 " hidden, formula_uncached) VALUES ('a__s', 1, 1, 'A1', 1, 1, 'x', 'str', 'x',"
                 " 0, 0)")
    conn.commit()
    conn.close()
    ws = Workspace(root)
    assert ws.load_grid("a__s").get(1, 1).text == "x"
    assert _query(ws, "SELECT role, table_id FROM cells") == [{"role": None, "table_id": None}]
    assert ws.tables() == []
    ws.close()


# --- properties -------------------------------------------------------------------------------

texts = st.text(st.characters(codec="utf-8"), max_size=130)
numbers = st.integers(-1000, 1000)


@settings(max_examples=80, deadline=None)
@given(headers=st.lists(texts | st.sampled_from(["Total", "TOTAL", "_row", "level_1", ""]),
                        min_size=1, max_size=8))
def test_wide_column_names_are_unique_and_safe_in_sql(headers):
    cells = {(1, c): Cell(1, c, h, h) for c, h in enumerate(headers, 1) if h}
    cells.update({(r, c): Cell(r, c, r * c, str(r * c))
                  for r in (2, 3) for c in range(1, len(headers) + 1)})
    grid = Grid("g.xlsx", "S", 0, 3, len(headers), "xlsx", cells)
    conn = sqlite3.connect(":memory:")
    for structure in analyse_grid(grid):
        plan = wide_plan(structure)
        assert plan.wide is not None
        names = plan.columns
        assert len({n.casefold() for n in names}) == len(names)
        assert all(n and n == n.strip() and len(n) <= MAX_NAME_LENGTH for n in names)
        assert not any(ch in n for n in names for ch in "\x00\n\r\t")
        conn.execute(f"CREATE TABLE t ({', '.join(map(quote_identifier, names))})")
        assert [row[1] for row in conn.execute("PRAGMA table_info(t)")] == names
        conn.execute("DROP TABLE t")


@st.composite
def small_grids(draw):
    n_rows, n_cols = draw(st.integers(2, 7)), draw(st.integers(2, 5))
    cells = {}
    for r in range(1, n_rows + 1):
        for c in range(1, n_cols + 1):
            kind = draw(st.sampled_from(["num", "text", "empty"]))
            if kind == "num":
                n = draw(numbers)
                cells[(r, c)] = Cell(r, c, n, str(n))
            elif kind == "text":
                t = draw(st.sampled_from(["a", "Total", "North", "x y", "-", "2024"]))
                cells[(r, c)] = Cell(r, c, t, t)
    if draw(st.booleans()) and (1, 2) in cells:  # a header merged across two columns
        cells.pop((1, 3), None)
        cells[(1, 2)].colspan = 2
    return Grid("p.xlsx", "P", 0, n_rows, n_cols, "xlsx", cells)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(grid=small_grids())
def test_every_data_cell_appears_exactly_once_in_the_long_table(tmp_path, grid):
    ws = Workspace(tmp_path / new_workspace_id())
    sha = new_workspace_id()
    ws._store(sha, "p.xlsx", b"x", [grid])
    structures = analyse_grid(grid)
    assert [t.id for t in ws.tables()] == [f"p__p__t{s.index}" for s in structures]
    for structure in structures:
        long = ws.table(f"p__p__t{structure.index}").long
        refs = [r["ref"] for r in _query(ws, f'SELECT ref FROM "{long}"')]
        assert len(refs) == len(structure.data)
        assert sorted(refs) == sorted(dc.cell.ref for dc in structure.data)
    ws.close()


def test_long_table_keeps_number_as_written_and_scaled_value(ws):
    data = _xlsx([["Sales by region (in thousands)"], [], ["Region", "Sales", "Code"],
                  ["North", 5, "007"], ["South", 7, "x"]])
    ws.add_file(io.BytesIO(data), "scaled.xlsx")
    [row] = ws.tables()
    cells = {r["ref"]: r for r in _query(ws, f'SELECT * FROM "{row.long}"')}
    assert (cells["B4"]["number"], cells["B4"]["value"]) == (5, 5000)
    assert (cells["B4"]["scale"], cells["B4"]["scale_source"]) == (1000, "title")
    wide = _query(ws, f'SELECT "Code" FROM "{row.wide}" ORDER BY _row')
    assert wide == [{"Code": "007"}, {"Code": "x"}]  # a text column keeps codes as written


def test_integers_beyond_sqlite_range_are_stored_as_reals(ws):
    cells = {(1, 1): Cell(1, 1, "Item", "Item"), (1, 2): Cell(1, 2, "Count", "Count"),
             (2, 1): Cell(2, 1, "a", "a"), (2, 2): Cell(2, 2, 2**70, str(2**70))}
    ws._store("s", "big.xlsx", b"x", [Grid("big.xlsx", "S", 0, 2, 2, "xlsx", cells)])
    [row] = ws.tables()
    assert _query(ws, f'SELECT number FROM "{row.long}"') == [{"number": float(2**70)}]
    assert _query(ws, f'SELECT "Count" FROM "{row.wide}"') == [{"Count": float(2**70)}]


def test_a_workspace_with_per_table_path_tables_still_reads_and_drops_them(tmp_path, samples):
    """Workspaces written before the shared `row_paths`/`col_paths` gave each table its own
    `<table>__row_paths` and `<table>__col_paths`, read by its long view."""
    ws = Workspace(tmp_path / "w")
    info = ws.add_file(samples / "financial.xlsx")
    table, db = FIN, ws.db
    before = db.execute(f'SELECT * FROM "{table}__long" ORDER BY ref').fetchall()
    with db.conn:
        db.execute(f'CREATE TABLE "{table}__row_paths" AS SELECT row, col, row_path, '
                   "row_path_text FROM row_paths WHERE table_id = ?", [table])
        db.execute(f'CREATE TABLE "{table}__col_paths" AS SELECT col, col_path, col_path_text '
                   "FROM col_paths WHERE table_id = ?", [table])
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                         [f"{table}__long"]).fetchone()[0]
        legacy = sql
        for paths, alias in (("row_paths", "p"), ("col_paths", "q")):
            legacy = legacy.replace(f"JOIN {paths} {alias} ON {alias}.table_id = '{table}' AND",
                                    f'JOIN "{table}__{paths}" {alias} ON')
        assert legacy != sql
        db.execute(f'DROP VIEW "{table}__long"')
        db.execute(legacy)
        for paths in ("row_paths", "col_paths"):
            db.execute(f"DELETE FROM {paths} WHERE table_id = ?", [table])
    reopened = Workspace(tmp_path / "w")
    assert reopened.db.execute(f'SELECT * FROM "{table}__long" ORDER BY ref').fetchall() == before
    reopened.remove_source(info.sha256)
    names = {r[0] for r in reopened.db.execute("SELECT name FROM sqlite_master")}
    assert not {f"{table}__row_paths", f"{table}__col_paths", f"{table}__long"} & names


def test_a_schema_9_workspace_keeps_its_cells_as_rows_and_stores_new_ones_by_blocks(tmp_path,
                                                                                  samples):
    """Schema 10 stores plain data cells by blocks of a column (`storage.plain_cells`): an
    older workspace's cells table becomes `cell_rows` when it is opened, every reader sees the
    same cells, and new files and header corrections store theirs by blocks."""
    old = Workspace(tmp_path / "w")
    fin = old.add_file(samples / "financial.xlsx")
    cells = _query(old, "SELECT * FROM cells ORDER BY grid, row, col")
    long = _query(old, f'SELECT * FROM "{FIN}__long" ORDER BY row, col')
    as_schema_9(old.db.conn)
    kinds = _query(old, "SELECT type FROM sqlite_master WHERE name = 'cells'")
    assert kinds == [{"type": "table"}]
    old.close()
    ws = Workspace(tmp_path / "w")
    assert _query(ws, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        {"value": str(workspace_module.WORKSPACE_SCHEMA_VERSION)}]
    assert _query(ws, "SELECT count(*) AS n FROM plain_cells") == [{"n": 0}]
    assert _query(ws, "SELECT * FROM cells ORDER BY grid, row, col") == cells
    assert _query(ws, f'SELECT * FROM "{FIN}__long" ORDER BY row, col') == long
    fin_grid = ws.table(FIN).grid
    fin_cells = [c for c in cells if c["grid"] == fin_grid]
    assert ws.grid_counts(fin_grid)[0] == len(fin_cells)
    hr = ws.add_file(samples / "hr.xlsx")
    assert _query(ws, "SELECT count(*) AS n FROM plain_cells WHERE table_id = ?",
                  [HR])[0]["n"] > 0
    ws.restructure(fin.sha256, "P&L", 0, header_rows=None, header_cols=None)
    assert _query(ws, "SELECT count(*) AS n FROM plain_cells WHERE table_id = ?",
                  [FIN])[0]["n"] > 0
    assert _query(ws, "SELECT * FROM cells WHERE grid = ? ORDER BY row, col",
                  [fin_grid]) == fin_cells
    assert _query(ws, f'SELECT * FROM "{FIN}__long" ORDER BY row, col') == long
    for info in (fin, hr):
        ws.remove_source(info.sha256)
    assert _query(ws, "SELECT (SELECT count(*) FROM cell_rows) + (SELECT count(*) FROM "
                  "plain_cells) AS n") == [{"n": 0}]
    ws.close()


def test_a_schema_5_workspace_gains_the_column_index_that_holds_values(tmp_path, samples):
    old = Workspace(tmp_path / "w")
    old.add_file(samples / "financial.xlsx")
    as_schema_9(old.db.conn)
    with old.db.conn:  # the narrow index of schema 5
        old.db.execute("DROP INDEX cells_by_column")
        old.db.execute("CREATE INDEX cells_by_column ON cells (grid, table_id, col)")
        old.db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    old.close()
    ws = Workspace(tmp_path / "w")
    [sql] = [r["sql"] for r in _query(ws, "SELECT sql FROM sqlite_master WHERE name = ?",
                                      ["cells_by_column"])]
    assert COLUMN_INDEX in sql
    plan = " ".join(str(r) for r in ws.db.execute(
        "EXPLAIN QUERY PLAN SELECT text, number, kind, unit, ref, date, scale, scale_source, "
        "row FROM cell_rows INDEXED BY cells_by_column WHERE grid = 'g' AND table_id = 't' AND "
        "col = 2 AND kind IS NOT NULL AND rowspan = 1 AND colspan = 1").fetchall())
    assert "COVERING INDEX" in plan
    ws.close()
