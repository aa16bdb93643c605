"""Parallel uploads into one workspace, and questions while an upload writes (real SQLite)."""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import threading
import time
import traceback
from pathlib import Path

import pytest

from agent.steptables import step_tables
from storage.workspace import Workspace
from tablelens import chat_store, runs

SAMPLES = Path(__file__).parent / "samples"
PROCESSES = 20


def _add_all(root: str, files: list[str], barrier, results) -> None:
    """One process: open the workspace and add every file, reporting any exception."""
    try:
        barrier.wait(timeout=60)
        ws = Workspace(root)
        for path in files:
            ws.add_file(path)
        ws.close()
        results.put("ok")
    except BaseException:
        results.put(traceback.format_exc())


def test_twenty_processes_adding_the_same_files_store_one_copy_each(tmp_path):
    # Two different files named alike race for one slug; the others for one sha256.
    other = tmp_path / "other" / "hr.xlsx"
    other.parent.mkdir()
    shutil.copy(SAMPLES / "financial.xlsx", other)
    files = [str(SAMPLES / "hr.xlsx"), str(other), str(SAMPLES / "csv/multiline_quoted.csv"),
             str(SAMPLES / "html/multi.html")]
    root = str(tmp_path / "fresh")  # not created yet: the schema is raced for too
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(PROCESSES), context.Queue()
    workers = [context.Process(target=_add_all,
                               args=(root, files[i % 4:] + files[:i % 4], barrier, results))
               for i in range(PROCESSES)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert outcomes == ["ok"] * PROCESSES, next(o for o in outcomes if o != "ok")
    ws = Workspace(root)
    assert sorted(s.slug for s in ws.sources()) == ["hr", "hr_2", "multi", "multiline_quoted"]
    assert len(list(ws.files_dir.iterdir())) == 4
    assert len(ws.grids()) == len({g.id for g in ws.grids()})


def test_opening_waits_for_a_writer_before_switching_a_new_database_to_wal(tmp_path):
    # The race of the twenty processes, made certain: the database is still in rollback mode
    # (as before its first opener switched it) and another connection holds the write lock.
    # SQLite refuses the switch to WAL at once there, without its busy handler.
    root = tmp_path / "ws"
    root.mkdir()
    writer = sqlite3.connect(root / "workspace.sqlite", isolation_level=None)
    writer.execute("CREATE TABLE early (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO early VALUES (1)")
    opened: list[object] = []
    opener = threading.Thread(target=lambda: opened.append(_open_or_error(root)))
    opener.start()
    time.sleep(0.3)
    assert opener.is_alive() and not opened  # waiting, not failed
    writer.execute("COMMIT")
    opener.join(timeout=30)
    assert isinstance(opened[0], Workspace), opened[0]
    assert opened[0].db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _open_or_error(root: Path) -> object:
    try:
        return Workspace(root)
    except Exception as exc:  # reported to the test's thread, not lost in this one
        return exc


QUESTION = "What was the total operating expense for Q2 2024?"


class HeldUpload:
    """Another connection's open write transaction, as an upload holds while it stores."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

    def begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('upload', 'in progress')")

    def commit(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.close()


@pytest.fixture
def financial(tmp_path):
    ws = Workspace(tmp_path / "ws")
    ws.add_file(SAMPLES / "financial.xlsx")
    yield ws
    ws.close()


def test_a_question_asked_during_an_upload_waits_for_it_and_says_so(financial):
    upload = HeldUpload(financial.db_path)
    upload.begin()
    run = runs.start(financial, QUESTION)
    time.sleep(1.5)
    assert not run.done
    assert [e["title"] for e in run.events] == [runs.WAITING]
    upload.commit()
    assert run.join(60)
    assert run.error is None and run.answer["answer"] == "375"
    turn = chat_store.turns(financial)[-1]
    assert turn.question == {"text": QUESTION} and turn.answer["answer"] == "375"
    assert turn.events[0]["title"] == runs.WAITING


def test_step_tables_written_while_an_upload_holds_the_lock_wait_for_it(financial,
                                                                          monkeypatch):
    """The upload starts after the question did: the step table write waits, nothing fails."""
    import agent.nodes
    from agent.graph import build_graph

    upload = HeldUpload(financial.db_path)
    real = agent.nodes.sql_step

    def upload_starts_first(state, runtime):
        upload.begin()
        threading.Timer(1.5, upload.commit).start()
        return real(state, runtime)

    monkeypatch.setattr(agent.nodes, "sql_step", upload_starts_first)
    run = runs.start(financial, QUESTION, graph=build_graph())
    assert run.join(60)
    assert run.error is None and run.answer["answer"] == "375"
    assert not [e for e in run.events if e["phase"] == "error"]
    assert chat_store.turns(financial)[-1].answer["answer"] == "375"
    assert step_tables(financial.db, run.run_id)


def test_an_unexpected_error_keeps_the_question_and_says_why(financial, monkeypatch):
    def broken(*args, **kwargs):
        yield from ()
        raise ValueError("internal detail")

    monkeypatch.setattr(runs, "stream_question", broken)
    run = runs.start(financial, QUESTION)
    assert run.join(30)
    turn = chat_store.turns(financial)[-1]
    assert turn.question == {"text": QUESTION}
    assert turn.error == run.error and "ValueError" in run.error


def test_stop_ends_an_upload_that_waits_for_another_uploads_lock(financial):
    """SQLite's wait for the write lock cannot be interrupted; the upload waits in slices and
    Stop, pressed while it waits, ends it with nothing stored."""
    from ingest.errors import IngestStopped

    held = HeldUpload(financial.db_path)
    held.begin()
    cancel, storing = threading.Event(), threading.Event()
    outcome: list[BaseException | object] = []

    def progress(_fraction: float, stage: str) -> None:
        if stage == "storing":
            storing.set()  # read; next it takes the write lock

    def upload() -> None:
        ws = Workspace(financial.root)  # the upload's own connection, as in the app
        try:
            outcome.append(ws.add_file(SAMPLES / "hr.xlsx", cancel=cancel, progress=progress))
        except BaseException as exc:  # noqa: BLE001 - the test looks at what it was
            outcome.append(exc)
        finally:
            ws.close()

    uploading = threading.Thread(target=upload)
    uploading.start()
    try:
        assert storing.wait(30)
        time.sleep(0.5)
        assert uploading.is_alive() and not outcome  # waiting for the lock
        cancel.set()
        uploading.join(30)
        assert not uploading.is_alive()
        [ended] = outcome
        assert isinstance(ended, IngestStopped), ended
    finally:
        held.commit()
        uploading.join(30)
    assert [s.name for s in financial.sources()] == ["financial.xlsx"]
