"""Stopping an upload and the ingest time limit (issue 14, item 5): at any point of reading,
storing or readying a file, a stop leaves the workspace exactly as it was (no row, table,
view, index entry or file copy), raises a typed error that names the file, and the same file
can be added afterwards and answers questions.

The stop is made deterministic: a cancel flag that reads as set from its k-th look on, so
each case stops at a known check point, never at a time.
"""

from __future__ import annotations

import csv
import io
import signal
import sqlite3
import threading
from pathlib import Path

import openpyxl
import pytest

from agent.prepare import add_prepared
from agent.run import answer_question
from bench.stop_latency import leftovers
from ingest.errors import IngestInterrupted, IngestStopped, IngestTimeLimit, LimitExceeded
from ingest.limits import Limits
from storage.workspace import Workspace
from tablelens import cli, uploads
from tablelens.settings import Settings

from .sheet_samples import Sheet, write_ods, write_xls

ROWS = 2_000
QUESTION = "What is the total Sales?"
TOTAL = sum(i * 7 % 1000 for i in range(ROWS))


class StopAt(threading.Event):
    """A cancel flag that reads as set from its `at`-th look on (None: never)."""

    def __init__(self, at: int | None = None) -> None:
        super().__init__()
        self.at = at
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.at is not None and self.looks >= self.at


def rows() -> list[list[object]]:
    return [["Item", "Sales", "Cost"]] + [[f"Item {i}", i * 7 % 1000, i % 13]
                                          for i in range(ROWS)]


def write_file(folder: Path, kind: str) -> Path:
    """The same table as CSV, xlsx, xls, ods, HTML or Markdown."""
    table = rows()
    path = folder / f"sales.{kind}"
    if kind == "csv":
        with open(path, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(table)
    elif kind == "xlsx":
        wb = openpyxl.Workbook()
        for row in table:
            wb.active.append(row)
        wb.save(path)
    elif kind in ("xls", "ods"):
        cells = {(r, c): v for r, row in enumerate(table, 1) for c, v in enumerate(row, 1)}
        (write_xls if kind == "xls" else write_ods)(path, [Sheet("Sales", cells)])
    elif kind == "html":
        body = "".join("<tr>" + "".join(f"<td>{v}</td>" for v in row) + "</tr>" for row in table)
        path.write_text(f"<html><body><table>{body}</table></body></html>", encoding="utf-8")
    else:
        lines = ["| " + " | ".join(map(str, row)) + " |" for row in table]
        lines.insert(1, "|---|---|---|")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def total_sales(ws: Workspace) -> float | None:
    answer = answer_question(ws, QUESTION)
    return answer.values[0] if answer.values else None


@pytest.fixture(params=["csv", "xlsx", "xls", "ods", "html", "md"])
def sales_file(request, tmp_path) -> Path:
    return write_file(tmp_path, request.param)


def test_a_stop_at_any_check_point_leaves_nothing_and_the_file_can_be_added_again(
        sales_file, tmp_path):
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)
    counting = StopAt()
    stages: list[str] = []
    add_prepared(Workspace(tmp_path / "count"), sales_file, cancel=counting,
                 progress=lambda f, stage: stages.append(stage))
    looks = counting.looks
    assert looks > 20  # checked all along, not only between stages
    stopped_in: set[str] = set()
    for share in (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999):
        seen: list[tuple[float, str]] = []
        with pytest.raises(IngestStopped) as caught:
            add_prepared(ws, sales_file, cancel=StopAt(max(1, int(looks * share))),
                         progress=lambda f, stage, seen=seen: seen.append((f, stage)))
        assert str(caught.value) == f"{sales_file.name}: upload stopped; nothing was stored."
        assert leftovers(ws) == before
        fraction, stage = seen[-1]
        stopped_in.add("ready" if stage.startswith("getting ready") else
                       "read" if fraction < 0.5 else "store")  # add_file: reading is 0-0.5
    # Stops landed while reading, while storing, and while getting ready for questions.
    assert stopped_in == {"read", "store", "ready"}
    info, new = add_prepared(ws, sales_file)
    assert new and len(ws.table_ids(info.sha256)) == 1
    assert total_sales(ws) == TOTAL


def test_a_foreign_exception_through_add_file_rolls_back_too(tmp_path):
    """Streamlit's rerun exception (a BaseException) raised from a progress report, or
    Ctrl-C's KeyboardInterrupt, leaves nothing either."""

    class Rerun(BaseException):
        pass

    path = write_file(tmp_path, "csv")
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)
    for stage in ("reading", "structure", "views", "getting ready for questions"):
        def progress(fraction: float, now: str, stage: str = stage) -> None:
            if now.startswith(stage):
                raise Rerun()

        with pytest.raises(Rerun):
            add_prepared(ws, path, progress=progress)
        assert leftovers(ws) == before
    add_prepared(ws, path)
    assert total_sales(ws) == TOTAL


def test_an_ingest_over_its_time_limit_raises_its_own_error(tmp_path):
    path = write_file(tmp_path, "xlsx")
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)
    with pytest.raises(IngestTimeLimit) as caught:
        ws.add_file(path, limits=Limits(max_ingest_seconds=1e-6))
    message = str(caught.value)
    assert message.startswith("sales.xlsx: reading and storing it took longer than the 1e-06 s")
    assert "nothing was stored" in message and "Split the file" in message
    assert "TABLELENS_MAX_INGEST_SECONDS" in message
    assert isinstance(caught.value, LimitExceeded) and isinstance(caught.value, IngestInterrupted)
    assert leftovers(ws) == before
    ws.add_file(path)  # the default limit
    assert len(ws.sources()) == 1


def test_the_time_limit_covers_getting_ready_for_questions(tmp_path, monkeypatch):
    """A limit that runs out while the tables' facts are computed ends the upload too."""
    import agent.prepare as prepare

    path = write_file(tmp_path, "csv")
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)
    real = prepare.prepare_tables

    def slow_then_real(workspace, table_ids):
        from ingest import cancel
        watch = cancel.current()
        watch.deadline = 0.0  # the limit ran out just as readying began
        real(workspace, table_ids)

    monkeypatch.setattr(prepare, "prepare_tables", slow_then_real)
    with pytest.raises(IngestTimeLimit):
        add_prepared(ws, path)
    assert leftovers(ws) == before


def test_the_time_limit_is_a_documented_setting():
    assert Settings.from_env({}).limits().max_ingest_seconds == 300
    settings = Settings.from_env({"TABLELENS_MAX_INGEST_SECONDS": "12.5"})
    assert settings.limits().max_ingest_seconds == 12.5


def test_a_stop_inside_a_long_sql_statement_ends_it(tmp_path):
    """SQLite's progress handler ends a long statement of the ingest (a big insert, a view's
    query for the search index) as the typed stop, not only the Python loops around it."""
    from ingest.cancel import Watch
    from storage.interrupt import ending_statements

    ws = Workspace(tmp_path / "ws")
    watch = Watch("big.csv", cancel=StopAt(3))
    with pytest.raises(IngestStopped) as caught, \
            ending_statements(ws.db.conn, watch.ended, watch.check):
        ws.db.conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                           "WHERE i < 100000000) SELECT count(*) FROM n").fetchone()
    assert isinstance(caught.value.__context__, sqlite3.OperationalError)
    ws.db.conn.execute("SELECT count(*) FROM cells").fetchone()  # the handler is gone


def test_the_app_upload_runner_stops_the_upload_when_drawing_raises(tmp_path):
    """The app's script thread draws the bar; Streamlit's rerun exception there (a click)
    cancels the worker's upload, which ends with IngestStopped and nothing stored."""

    class Rerun(BaseException):
        pass

    path = write_file(tmp_path, "xlsx")
    ws = Workspace(tmp_path / "ws")
    before = leftovers(ws)
    ended: list[object] = []
    draws = 0

    def show(fraction: float, stage: str) -> None:
        nonlocal draws
        draws += 1
        if draws == 2:
            raise Rerun()

    def work(cancel: threading.Event, progress):
        cancel.wait()  # the click comes while the upload is still being read
        return add_prepared(ws, path, cancel=cancel, progress=progress)

    with pytest.raises(Rerun):
        uploads.run_upload(work, show, on_interrupt=lambda result, error: ended.append(error),
                           poll_s=0.001)
    assert len(ended) == 1 and isinstance(ended[0], IngestStopped)
    assert leftovers(ws) == before
    added = uploads.run_upload(lambda cancel, progress: add_prepared(ws, path),
                               lambda fraction, stage: None, on_interrupt=lambda r, e: None)
    assert added[1] and len(ws.sources()) == 1


def test_ctrl_c_during_ingest_stops_the_command_cleanly(tmp_path, monkeypatch, capsys):
    """The first Ctrl-C sets the upload's cancel flag: the file is not stored, the command
    says so and exits with 130."""
    import storage.workspace as workspace_module

    path = write_file(tmp_path, "csv")
    real = workspace_module.analyse_grid

    def ctrl_c_then_analyse(*args, **kwargs):
        signal.raise_signal(signal.SIGINT)  # as if the user pressed Ctrl-C now
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace_module, "analyse_grid", ctrl_c_then_analyse)
    folder = tmp_path / "ws"
    assert cli.main(["inspect", str(path), "--workspace", str(folder)]) == 130
    assert "error: sales.csv: upload stopped; nothing was stored." in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ws = Workspace(folder)
    assert ws.sources() == [] and list(ws.files_dir.iterdir()) == []


def test_readers_alone_are_not_watched():
    """Outside an upload the checks do nothing: a reader used on its own reads."""
    from ingest.read import read_file

    data = "a,b\n" + "".join(f"{i},{i}\n" for i in range(10_000))
    assert read_file(io.BytesIO(data.encode()), "t.csv")[0].n_rows == 10_001
