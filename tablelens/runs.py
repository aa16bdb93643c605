"""Runs of questions on worker threads, followed by the app's script thread.

Why a thread: Streamlit stops a running script at its next Streamlit call whenever the user
clicks anything, and a Stop button's callback only runs in the *next* script run. If the
script itself iterated `stream_question`, a click anywhere would abandon the run, and a Stop
pressed during a long step (SQL, an LLM call) would be seen only once that step had ended. So
a run lives here instead: the worker iterates `stream_question` and keeps every event in memory
as it is emitted; the script thread (the only one that calls Streamlit) renders the events as they
arrive and, if it is stopped and rerun (a click, a refresh, another tab), picks the same run up
again. `stop(run_id)` sets the run's cancel flag, which the agent checks between nodes, inside
SQL and between LLM batches; the partial trace is kept, ending `cancelled`.

The transcript (`chat_store`) gets the question when the run starts, on the worker, and the
events with the answer (or error) in one transaction when it ends. Not event by event: every
such commit would be one more wait for the write lock in the middle of a step, which an
upload holds while it stores (and a deferred transaction that meets it fails at once with
"database is locked": SQLite refuses to wait when waiting could deadlock). The run's writes
wait for the upload (`WRITE_WAIT_S`), on the worker so the page stays live, and the trace first
says "Waiting for the upload to finish" when the question has to. The registry is per process
(a module global): a turn without an answer whose run is not here (the app restarted) is shown
as interrupted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.events import Answer, StepEvent
from agent.llm.settings import LLMSettings
from agent.run import new_run_id, stream_question
from storage.workspace import Workspace, write_transaction
from tablelens import chat_store
from tablelens.chat_view import plain_error
from tablelens.llm_options import llm_kwargs

log = logging.getLogger(__name__)


class RunInProgress(Exception):
    """The chat already has a question being answered."""

    message = ("A question is still being answered in this chat: wait for it, or press Stop, "
               "then ask again.")


@dataclass(eq=False)
class Run:
    """A question being answered: its events so far, then its answer (or error)."""

    run_id: str
    chat_id: str
    question: str
    files: list[str] = field(default_factory=list)
    """The names of the files attached to the question (shown with it while it runs)."""
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)
    events: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    error: str | None = None
    first_event_s: float | None = None
    llm: LLMSettings | None = field(default=None, repr=False)
    """The chat model of the browser session that asked (None: offline). Held in memory
    only, with its key: never stored with the run."""
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    _changed: threading.Condition = field(default_factory=threading.Condition, repr=False)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def stopping(self) -> bool:
        """Stop was asked for and the run has not ended yet."""
        return self.cancel.is_set() and not self.done

    def wait(self, seen: int, timeout: float) -> list[dict[str, Any]]:
        """Return the events after the first `seen`, waiting up to `timeout` s for one (or
        for the end of the run)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self.events) > seen or self.done, timeout)
            return list(self.events[seen:])

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the run to end; return whether it has."""
        return self._done.wait(timeout)

    def _push(self, event: dict[str, Any]) -> None:
        with self._changed:
            if self.first_event_s is None:
                self.first_event_s = time.monotonic() - self.started
            self.events.append(event)
            self._changed.notify_all()

    def _finish(self, answer: dict[str, Any] | None = None, error: str | None = None) -> None:
        with self._changed:
            if not self.done:
                self.answer, self.error = answer, error
                self._done.set()
            self._changed.notify_all()


_RUNS: dict[str, Run] = {}
_LOCK = threading.Lock()


def active(chat_id: str) -> Run | None:
    """Return the chat's run that has not ended yet, if any."""
    with _LOCK:
        return next((r for r in _RUNS.values() if r.chat_id == chat_id and not r.done), None)


def get(run_id: str) -> Run | None:
    with _LOCK:
        return _RUNS.get(run_id)


def stop(run_id: str) -> bool:
    """Ask a run to stop (the Stop button's callback); return whether it was running."""
    run = get(run_id)
    if run is None or run.done:
        return False
    run.cancel.set()
    return True


def stop_chat(chat_id: str, wait_s: float) -> bool:
    """Stop the chat's running question, if any, and wait up to `wait_s` for it to end (its
    partial trace stored); return whether the chat has no run going any more."""
    run = active(chat_id)
    if run is None:
        return True
    run.cancel.set()
    return run.join(wait_s)


def start(workspace: Workspace, question: str, *, files: Sequence[str] = (),
          run_id: str | None = None, graph: Any = None, llm: LLMSettings | None = None) -> Run:
    """Start answering a question on a worker thread, which stores it first; return the run.

    `llm` is the asking browser session's chat model (None or not enabled: offline).
    Raises RunInProgress when the chat already has a run going (one run per chat).
    """
    with _LOCK:
        if any(r.chat_id == workspace.id and not r.done for r in _RUNS.values()):
            raise RunInProgress()
        run = Run(run_id or new_run_id(), workspace.id, question, list(files), llm=llm)
        _RUNS[run.run_id] = run
    worker = threading.Thread(target=_work, args=(run, workspace.root, graph),
                              name=f"tablelens-run-{run.run_id}", daemon=True)
    worker.start()
    return run


def _work(run: Run, root: Path, graph: Any) -> None:
    """Answer the question on this thread; store the run in the transcript when it ends."""
    workspace: Workspace | None = None
    answer: dict[str, Any] | None = None
    error: str | None = None
    try:
        workspace = Workspace(root)  # this thread's own connection
        _store_question(workspace, run)
        # Events reach the page as they are emitted (on_event), not once their node has run.
        for item in stream_question(workspace, run.question, run_id=run.run_id,
                                    cancel=run.cancel, graph=graph, thread_id=run.chat_id,
                                    on_event=lambda event: run._push(event.to_json_dict()),
                                    **llm_kwargs(run.llm)):
            if isinstance(item, Answer):
                answer = item.to_json_dict()
    except Exception as exc:  # every failure becomes one plain message in the chat
        log.exception("run %s failed", run.run_id)
        answer, error = None, plain_error(exc)
    finally:
        if answer is None and error is None:
            error = "The run ended without an answer."
        if workspace is not None:
            try:
                _store(workspace, run, answer, error)
            except Exception:
                log.exception("could not store run %s", run.run_id)
            workspace.close()
        run._finish(answer, error)
        with _LOCK:
            _RUNS.pop(run.run_id, None)


WAITING = "Waiting for the upload to finish"


def _store_question(workspace: Workspace, run: Run) -> None:
    """Store the question; when an upload holds the write lock, say so in the trace first
    (the write then waits for the upload to commit)."""
    with write_transaction(workspace.db, wait=False) as free:
        pass  # only asks whether the lock is free now
    if not free:
        # A start of the first step: the chat shows it until the step's own start renames it.
        run._push(StepEvent(run_id=run.run_id, seq=0, node="decompose", phase="start",
                            title=WAITING, elapsed_ms=0).to_json_dict())
    # BEGIN IMMEDIATE: sqlite-utils' own deferred BEGIN reads the schema before it writes, and
    # such a transaction cannot wait for the upload's commit (SQLite fails it at once).
    with write_transaction(workspace.db):
        chat_store.add_question(workspace, run.run_id, run.question, run.files)


def _store(workspace: Workspace, run: Run, answer: dict[str, Any] | None,
           error: str | None) -> None:
    """Write the run to the transcript, waiting for another write (an upload) to commit."""
    with write_transaction(workspace.db):  # see _store_question
        chat_store.add_run(workspace, run.run_id, list(run.events), answer=answer,
                           error=error)
