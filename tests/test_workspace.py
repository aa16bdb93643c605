"""The workspace stores files and grids in one transaction and gives them back exactly."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.errors import CorruptFile
from ingest.grid import Cell, Grid, Style
from storage.slug import unique_file_name
from storage.workspace import Workspace, new_workspace_id
from tablelens.render import grid_html


def test_workspace_ids_are_22_url_safe_characters():
    ids = {new_workspace_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i) == 22 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_add_file_stores_bytes_and_grids(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    info = ws.add_file(samples / "financial.xlsx")
    assert info.name == "financial.xlsx" and info.slug == "financial"
    assert ws.file_path(info.sha256).read_bytes() == (samples / "financial.xlsx").read_bytes()
    [grid_info] = ws.grids()
    assert grid_info.id == "financial__p_l" and grid_info.sheet == "P&L"
    grid = ws.load_grid(grid_info.id)
    assert grid.get(1, 2).colspan == 2 and grid.get(5, 1).style.indent == 1
    # The same bytes again are not stored twice.
    assert ws.add_file(samples / "financial.xlsx").sha256 == info.sha256
    assert len(ws.sources()) == 1


def test_same_name_different_content_gets_a_new_slug(tmp_path):
    ws = Workspace(tmp_path / "w")
    a = ws.add_file(io.BytesIO(b"a,b\n1,2\n"), "data.csv")
    b = ws.add_file(io.BytesIO(b"a,b\n3,4\n"), "data.csv")
    assert (a.slug, b.slug) == ("data", "data_2")
    assert [g.id for g in ws.grids()] == ["data__data", "data_2__data"]


def test_another_file_of_a_stored_name_is_stored_under_a_name_of_its_own(tmp_path):
    """Two files of one name could not be told apart anywhere a person reads their name:
    the second is "data (2).csv" in its row, its tables' catalog and its text's passages."""
    ws = Workspace(tmp_path / "w")
    added = [ws.add_file(io.BytesIO(f"a,b\n{i},2\n".encode()), "data.csv") for i in range(3)]
    assert [a.name for a in added] == ["data.csv", "data (2).csv", "data (3).csv"]
    assert sorted(name for name, _ in ws.table_places().values()) == [
        "data (2).csv", "data (3).csv", "data.csv"]
    assert ws.add_file(io.BytesIO(b"a,b\n1,2\n"), "data.csv").name == "data (2).csv"
    notes = ws.add_file(io.BytesIO(b"First notes."), "notes.txt")
    assert notes.name == "notes.txt"
    assert ws.add_file(io.BytesIO(b"Other notes."), "notes.txt").name == "notes (2).txt"
    assert {c.file_name for c in ws.chunks()} == {"notes.txt", "notes (2).txt"}
    ws.remove_source(added[0].sha256)  # a name given back is free again
    assert ws.add_file(io.BytesIO(b"a,b\n9,2\n"), "data.csv").name == "data.csv"


def test_a_file_name_taken_gets_a_number_before_its_extension():
    assert unique_file_name("a.xlsx", set()) == "a.xlsx"
    assert unique_file_name("a.xlsx", {"a.xlsx", "a (2).xlsx"}) == "a (3).xlsx"
    assert unique_file_name("README", {"README"}) == "README (2)"
    assert unique_file_name("a (2).xlsx", {"a (2).xlsx"}) == "a (2) (2).xlsx"


def _sheet(*rows: list) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


HEADER_ONLY = ("the table has a header row (Region, Units, Revenue) but no rows of data under "
               "it, so questions about it will find nothing")


@pytest.mark.parametrize(("name", "data", "warnings"), [
    ("header_only.csv", b"Region,Units,Revenue\n", [HEADER_ONLY]),
    ("header_only.xlsx", _sheet(["Sales 2024"], [], ["Region", "Units", "Revenue"]),
     [HEADER_ONLY]),  # a title above it aside
    # Rows of data, a single row of numbers, a stray line beside a table: no warning.
    ("sales.csv", b"Region,Units,Revenue\nNorth,5,10\n", []),
    ("row.csv", b"North,5,10\n", []),
    ("book.xlsx", _sheet(["Region", "Units"], ["North", 5], [], ["Notes", "see below"]), []),
])
def test_a_table_of_a_header_alone_is_warned_of(tmp_path, name, data, warnings):
    """A CSV or a sheet saved before any row was filled is stored, and its panel says that
    questions about it will find nothing (it was added without a word)."""
    ws = Workspace(tmp_path / "w")
    try:
        info = ws.add_file(io.BytesIO(data), name)
        [grid] = ws.grids(info.sha256)
    finally:
        ws.close()
    assert grid.warnings == warnings


def test_a_failed_file_leaves_the_workspace_as_it_was(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    ws.add_file(samples / "hr.xlsx")
    before = list(ws.db.query("SELECT count(*) AS n FROM cells"))[0]["n"]
    with pytest.raises(CorruptFile):
        ws.add_file(io.BytesIO(b"not a zip"), "broken.xlsx")
    assert [s.name for s in ws.sources()] == ["hr.xlsx"]
    assert list(ws.db.query("SELECT count(*) AS n FROM cells"))[0]["n"] == before
    assert len(list(ws.files_dir.iterdir())) == 1


def test_a_write_that_fails_half_way_is_rolled_back(tmp_path, samples, monkeypatch):
    ws = Workspace(tmp_path / "w")
    from storage import workspace as module

    real_insert = module.insert_cells

    def exploding_insert(conn, grid, grid_id, structures):
        real_insert(conn, grid, grid_id, structures)
        assert conn.execute("SELECT count(*) FROM cells").fetchone()[0] > 0
        raise OSError("disk full")

    monkeypatch.setattr(module, "insert_cells", exploding_insert)
    with pytest.raises(OSError, match="disk full"):
        ws.add_file(samples / "hr.xlsx")
    assert ws.sources() == [] and ws.grids() == []
    assert list(ws.db.query("SELECT count(*) AS n FROM cells"))[0]["n"] == 0
    assert list(ws.files_dir.iterdir()) == []


def test_remove_source_deletes_everything_of_that_file(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    fin = ws.add_file(samples / "financial.xlsx")
    ws.add_file(samples / "hr.xlsx")
    ws.remove_source(fin.sha256)
    assert [s.name for s in ws.sources()] == ["hr.xlsx"]
    assert {g.sheet for g in ws.grids()} == {"Staff"}
    assert list(ws.db.query("SELECT DISTINCT grid FROM cells")) == [{"grid": "hr__staff"}]
    assert len(list(ws.files_dir.iterdir())) == 1
    left = {row["name"] for row in ws.db.query("SELECT name FROM sqlite_master")}
    assert not {name for name in left if name.startswith("financial")}  # views, path tables


def test_workspace_ids_cannot_escape_the_data_dir(tmp_path):
    for bad in ("../x", "", ".hidden", "a/b"):
        with pytest.raises(ValueError):
            Workspace.in_data_dir(tmp_path, bad)


values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False), st.text(max_size=20),
    st.dates(), st.datetimes(), st.times())
styles = st.builds(Style, bold=st.booleans(), italic=st.booleans(),
                   fill=st.none() | st.sampled_from(["FF0000", "theme4"]),
                   indent=st.integers(0, 5), borders=st.sampled_from(["", "T", "TBLR"]),
                   number_format=st.none() | st.just("0.0%"))


@st.composite
def grids(draw):
    n_rows, n_cols = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    positions = draw(st.sets(st.tuples(st.integers(1, n_rows), st.integers(1, n_cols)),
                             min_size=1, max_size=12))
    cells = {}
    for r, c in sorted(positions):
        cells[(r, c)] = Cell(
            r, c, draw(values), draw(st.text(max_size=10)), style=draw(styles),
            hidden=draw(st.booleans()), formula_uncached=draw(st.booleans()),
            box=draw(st.none() | st.tuples(*[st.integers(0, 999)] * 4)),
            confidence=draw(st.none() | st.floats(0, 1)),
            flags=tuple(draw(st.lists(st.sampled_from(["ocr_l1", "clamped"]), max_size=2))))
    return Grid("g.xlsx", draw(st.text(min_size=1, max_size=8)), 0, n_rows, n_cols, "xlsx", cells)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(grid=grids())
def test_grid_round_trips_through_the_cells_table(tmp_path, grid):
    ws = Workspace(tmp_path / new_workspace_id())
    sha = new_workspace_id()
    ws._store(sha, "g.xlsx", b"x", [grid])
    [info] = ws.grids(sha)
    back = ws.load_grid(info.id)
    assert back.cells == grid.cells
    assert (back.sheet, back.n_rows, back.n_cols, back.kind) == (
        grid.sheet, grid.n_rows, grid.n_cols, grid.kind)
    ws.close()


def test_dates_and_big_integers_keep_their_types(tmp_path):
    cells = {(1, 1): Cell(1, 1, dt.date(2024, 2, 29), "2024-02-29"),
             (1, 2): Cell(1, 2, 2**80, str(2**80)), (1, 3): Cell(1, 3, True, "TRUE")}
    ws = Workspace(tmp_path / "w")
    ws._store("s", "t.xlsx", b"x", [Grid("t.xlsx", "S", 0, 1, 3, "xlsx", cells)])
    back = ws.load_grid("t__s")
    assert [type(c.raw) for c in back.iter_cells()] == [dt.date, int, bool]


@st.composite
def value_tables(draw):
    """A header row over plain value cells (unmerged, unflagged): the cell writer's fast path,
    with texts that repeat the raw value or differ from it."""
    n_cols = draw(st.integers(2, 5))
    cells = {(1, c): Cell(1, c, f"H{c}", f"H{c}") for c in range(1, n_cols + 1)}
    for r in range(2, draw(st.integers(3, 8))):
        cells[(r, 1)] = Cell(r, 1, f"row {r}", f"row {r}")
        for c in range(2, n_cols + 1):
            raw = draw(st.none() | st.booleans() | st.integers(-(2**70), 2**70)
                       | st.floats(allow_nan=False) | st.text(max_size=8)
                       | st.sampled_from(["12", "1,234", "5%", "it's", "$3.5m"]))
            if raw is None:
                continue
            text = draw(st.sampled_from([str(raw), f"{raw}%", "x"]))
            cells[(r, c)] = Cell(r, c, raw, text, style=draw(styles))
    return Grid("v.xlsx", "S", 0, max(r for r, _ in cells), n_cols, "xlsx", cells)


def _real(number: float | int | None) -> float | None:
    return None if number is None else float(number)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(grid=value_tables())
def test_value_cells_keep_raw_text_and_typed_value(tmp_path, grid):
    from ingest.structure import analyse_grid
    from storage.views import storable

    ws = Workspace(tmp_path / new_workspace_id())
    ws._store("s", "v.xlsx", b"x", [grid])
    assert ws.load_grid("v__s").cells == grid.cells
    [structure] = analyse_grid(grid)
    # `value` is a REAL column: an integer comes back as the float it is stored as (past
    # 2**53 a rounded one).
    expected = {dc.cell.ref: (storable(dc.value.number), _real(storable(dc.value.value())),
                              dc.value.kind, dc.value.unit, dc.value.scale)
                for dc in structure.data}
    stored = {row["ref"]: (row["number"], row["value"], row["kind"], row["unit"], row["scale"])
              for row in ws.db.query("SELECT * FROM v__s__t0__long")}
    assert stored == expected
    ws.close()


@pytest.mark.parametrize("window", [(1, 1, 200, 50), (2, 3, 8, 5), (1, 3, 3, 3), (1, 5, 1, 5),
                                    (4, 2, 6, 3)])
def test_a_window_of_a_grid_draws_like_the_whole_grid(tmp_path, samples, window):
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(samples / "financial.xlsx")
    [grid_info] = ws.grids(info.sha256)
    whole = ws.load_grid(grid_info.id)
    part = ws.load_window(grid_info.id, window)
    r0, c0, r1, c1 = window
    # Every cell the window shows is there, merged cells that start outside it included
    # (C1 shows B1:C1's "H1 2024"); nothing else is read.
    assert grid_html(part, window=window) == grid_html(whole, window=window)
    assert all(c.row <= r1 and c.col <= c1 and c.row + c.rowspan > r0
               and c.col + c.colspan > c0 for c in part.cells.values())
    assert (part.n_rows, part.n_cols, part.sheet) == (whole.n_rows, whole.n_cols, whole.sheet)


def test_grid_counts_are_those_of_the_whole_grid(tmp_path, samples):
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(samples / "financial.xlsx")
    [grid_info] = ws.grids(info.sha256)
    whole = ws.load_grid(grid_info.id)
    merged = whole.merges()
    assert ws.grid_counts(grid_info.id) == (len(whole.cells), len(merged),
                                            [c.range_ref for c in merged])
    assert ws.grid_counts(grid_info.id, listed=1)[2] == [merged[0].range_ref]


def test_grid_counts_of_another_file_under_a_freed_name_are_its_own(tmp_path):
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "a.csv").write_text("x,y\n1,2\n")
    first = ws.add_file(tmp_path / "a.csv")
    [grid] = ws.grids(first.sha256)
    assert ws.grid_counts(grid.id)[0] == 4
    ws.remove_source(first.sha256)
    (tmp_path / "a.csv").write_text("x,y\n1,2\n3,4\n5,6\n")
    second = ws.add_file(tmp_path / "a.csv")
    [again] = ws.grids(second.sha256)
    assert ws.grid_counts(again.id)[0] == 8


def test_a_tables_decoded_tree_is_kept_until_its_table_changes(tmp_path, samples):
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(samples / "financial.xlsx")
    [first] = ws.tables()
    assert first.tree.rows.paths  # decoded once...
    assert ws.tables()[0].tree is first.tree and ws.table(first.id).tree is first.tree
    corrected = ws.restructure(info.sha256, "P&L", 0, [1], None)  # ...a new version, a new tree
    assert corrected.version == first.version + 1
    assert ws.table(first.id).tree is not first.tree
    assert Workspace(tmp_path / "ws").tables()[0].tree == ws.table(first.id).tree
