"""A click during an upload reruns the page on a new thread at once (Streamlit's fast reruns),
while the stopped run still cancels its upload, waits for the rollback and writes "upload
stopped" in the chat. The rerun waits for that run's end (tablelens/script_runs.py), so it
never uses the session's one workspace connection together with the upload: it sees neither
the upload's uncommitted source row (a file with no tables) nor a transaction of it, and the
chat holds exactly the stopped message. Real SQLite workspace, real threads; the moments are
fixed by events, never by times.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent.prepare import add_prepared
from ingest.errors import IngestStopped
from storage.workspace import Workspace
from tablelens import chat_store, script_runs, uploads

ROWS = 5_000


class Stop(BaseException):
    """Stands for Streamlit's StopException, raised at a stopped run's next `st.*` call."""


def big_csv(path: Path) -> Path:
    path.write_text("Region,Item,Sales\n" + "".join(f"R{i % 7},Item {i},{i * 7 % 1000}\n"
                                                     for i in range(ROWS)), encoding="utf-8")
    return path


def test_a_rerun_waits_for_the_stopped_upload_and_sees_only_what_was_committed(tmp_path):
    path = big_csv(tmp_path / "big.csv")
    ws = Workspace(tmp_path / "ws")  # the session's one workspace, as the app caches it
    session: dict[str, Any] = {}  # the browser session's st.session_state
    batch = chat_store.new_upload_batch()
    in_transaction = threading.Event()  # the upload wrote its source row, not its tables yet
    rerun_asked = threading.Event()
    errors: list[BaseException] = []
    ended: list[BaseException | None] = []
    seen: dict[str, Any] = {}

    def work(cancel: threading.Event, progress) -> Any:
        def report(fraction: float, stage: str) -> None:
            progress(fraction, stage)
            if stage == "structure" and not in_transaction.is_set():
                in_transaction.set()
                cancel.wait()  # the upload goes on once the stopped run cancels it

        return add_prepared(ws, path, cancel=cancel, progress=report)

    def show(fraction: float, stage: str) -> None:  # the stopped run's bar
        if rerun_asked.is_set():
            raise Stop()

    def interrupted(result: Any, error: BaseException | None) -> None:
        ended.append(error)
        chat_store.add_upload(ws, batch, path.name, ok=False,
                              message=getattr(error, "message", "not an IngestStopped"))

    def stopped_run() -> None:
        try:
            with script_runs.one_at_a_time(session):
                uploads.run_upload(work, show, on_interrupt=interrupted, poll_s=0.001)
        except Stop:
            pass
        except BaseException as exc:
            errors.append(exc)

    def rerun() -> None:  # the next run of the page: its sidebar and panels read the workspace
        try:
            with script_runs.one_at_a_time(session):
                seen["in transaction"] = ws.db.conn.in_transaction
                seen["sources"] = [s.name for s in ws.sources()]
                seen["grids"] = len(ws.grids())
                seen["chat"] = [u["message"] for turn in chat_store.turns(ws)
                                for u in turn.uploads]
        except BaseException as exc:
            errors.append(exc)

    first = threading.Thread(target=stopped_run)
    first.start()
    assert in_transaction.wait(timeout=120), "the upload never reached its tables"
    rerun_asked.set()  # Streamlit asks the running run to stop, and at once...
    second = threading.Thread(target=rerun)  # ...starts the rerun on a new thread
    second.start()
    for thread in (first, second):
        thread.join(timeout=300)
        assert not thread.is_alive()
    assert errors == []
    assert len(ended) == 1 and isinstance(ended[0], IngestStopped)
    assert seen == {"in transaction": False, "sources": [], "grids": 0,
                    "chat": ["big.csv: upload stopped; nothing was stored."]}
    assert ws.sources() == [] and list(ws.files_dir.iterdir()) == []
    info, new = add_prepared(ws, path)  # and the file can be added afterwards
    assert new and len(ws.table_ids(info.sha256)) == 1


def test_a_fragment_drawn_inside_the_page_run_takes_the_lock_again():
    session: dict[str, Any] = {}
    with script_runs.one_at_a_time(session), script_runs.one_at_a_time(session):
        pass
    entered = threading.Event()

    def other_run() -> None:
        with script_runs.one_at_a_time(session):
            entered.set()

    other = threading.Thread(target=other_run)
    other.start()
    other.join(timeout=60)
    assert entered.is_set()  # released: another run's thread took it
