"""Many small tables ingest in time linear in their number, within the per-file table limit;
a file too wide to store is refused with a message; an interrupted ingest leaves no file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from bench.workloads import tiny_tables
from ingest.errors import TooManyColumns, TooManyTables
from ingest.limits import Limits
from storage.workspace import Workspace


def test_a_page_of_many_tiny_tables_is_stored_whole(tmp_path):
    ws = Workspace(tmp_path / "w")
    path = tmp_path / "many.html"
    path.write_bytes(tiny_tables(600))
    info = ws.add_file(path)
    ids = ws.table_ids(info.sha256)
    assert len(ids) == 600 and len(ws.grids(info.sha256)) == 600
    for i in (0, 299, 599):
        rows = ws.db.execute(f'SELECT row_path_text, text, number FROM "{ids[i]}__long"')
        assert rows.fetchall() == [(f"key {i}", str(i * 7), i * 7)]


def test_more_tables_than_the_limit_are_refused_before_anything_is_stored(tmp_path):
    ws = Workspace(tmp_path / "w")
    path = tmp_path / "many.html"
    path.write_bytes(tiny_tables(4000))
    with pytest.raises(TooManyTables) as refused:
        ws.add_file(path)
    assert "many.html" in str(refused.value) and "TABLELENS_MAX_TABLES" in str(refused.value)
    assert ws.sources() == [] and list(ws.files_dir.iterdir()) == []


def test_tables_found_on_one_sheet_count_against_the_limit(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    with pytest.raises(TooManyTables):
        ws.add_file(samples / "multi_sheet.xlsx", limits=Limits(max_tables=1))
    assert ws.sources() == [] and list(ws.files_dir.iterdir()) == []


@pytest.mark.parametrize("name, data", [
    ("commas.csv", b"a,b\n" + b"1" + b"," * 20_000 + b"2\n"),
    ("span.html", b"<table><tr>" + b'<td colspan="1000">x</td>' * 20 + b"</tr></table>"),
])
def test_a_grid_wider_than_column_xfd_is_refused_with_a_message(tmp_path, name, data):
    ws = Workspace(tmp_path / "w")
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(TooManyColumns) as refused:
        ws.add_file(path)
    assert name in str(refused.value) and "16,384" in str(refused.value)
    assert ws.sources() == []


def test_a_file_copy_no_source_names_is_removed_when_the_workspace_opens(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    kept = ws.add_file(samples / "hr.xlsx")
    ws.close()
    orphan = tmp_path / "w" / "files" / ("0" * 64 + ".xlsx")
    orphan.write_bytes(b"left by a killed upload")
    (tmp_path / "w" / "files" / ".upload-x1y2").write_bytes(b"half a temporary copy")
    ws = Workspace(tmp_path / "w")
    assert [p.name for p in ws.files_dir.iterdir()] == [ws.file_path(kept.sha256).name]


def test_a_killed_ingest_leaves_no_file_once_the_workspace_reopens(tmp_path):
    """Kill an ingest while it stores (the file copy is written inside its transaction)."""
    page = tmp_path / "many.html"
    page.write_bytes(tiny_tables(100))
    script = textwrap.dedent(f"""
        import os, sys
        from storage import workspace as w
        original = w._write_atomically
        def write_then_die(path, data):
            original(path, data)
            print("copied", flush=True)
            os.kill(os.getpid(), 9)  # before the transaction commits
        w._write_atomically = write_then_die
        w.Workspace({str(tmp_path / "w")!r}).add_file({str(page)!r})
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=os.getcwd())
    assert done.returncode == -signal.SIGKILL and "copied" in done.stdout
    assert len(list((tmp_path / "w" / "files").iterdir())) == 1  # the orphan
    ws = Workspace(tmp_path / "w")
    assert ws.sources() == [] and list(ws.files_dir.iterdir()) == []
    assert ws.add_file(page).name == "many.html"  # and the file can be added again
