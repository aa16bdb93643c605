"""The chat transcript, kept in the workspace database so a refresh or a restart replays it.

One table, `chat_messages` (created here with sqlite-utils), in the chat's own
`workspace.sqlite`: a workspace is exactly one chat. Rows are appended, never changed; each has a
`run_id` (one question and what answered it, or one batch of uploads), a `kind` and a JSON body:

- `question`: `{"text", "files"?}`, what the user asked;
- `event`: a StepEvent as JSON (CONTRACTS.md "Step events"), in the order it was emitted;
- `answer`: the Answer as JSON without its `steps` (they are the run's events);
- `error`: `{"message"}`, a run that failed, in plain words;
- `upload`: `{"name", "ok", "message", "tables"?}`, one uploaded file and how it went;
- `superseded`: `{"by"}`, the run of an edited copy of this turn's question (re-ask): the turn
  stays in the transcript, marked. Rows stay append-only: the mark is a row of its own.

`turns()` groups the rows back into turns, in the order they began.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from storage.workspace import Workspace

TABLE = "chat_messages"
SCHEMA_VERSION = 1
KINDS = ("question", "event", "answer", "error", "upload", "superseded")

log = logging.getLogger(__name__)


@dataclass
class Turn:
    """One question with its trace and answer, or one batch of uploads."""

    run_id: str
    question: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    answer: dict[str, Any] | None = None
    error: str | None = None
    uploads: list[dict[str, Any]] = field(default_factory=list)
    superseded_by: str | None = None
    """The run that re-asked this turn's question, edited; None while it is the latest."""

    @property
    def is_upload(self) -> bool:
        return self.question is None and bool(self.uploads)

    @property
    def finished(self) -> bool:
        return self.answer is not None or self.error is not None


def ensure_table(workspace: Workspace) -> None:
    """Create the `chat_messages` table if the workspace has none."""
    table = workspace.db[TABLE]
    if not table.exists():
        table.create({"id": int, "run_id": str, "kind": str, "body": str, "created_at": str,
                      "schema_version": int}, pk="id",
                     not_null={"run_id", "kind", "body", "created_at"}, if_not_exists=True)
        table.create_index(["run_id"], if_not_exists=True)


def append(workspace: Workspace, run_id: str, kind: str, body: dict[str, Any]) -> int:
    """Store one message; return its id."""
    if kind not in KINDS:
        raise ValueError(f"unknown chat message kind {kind!r}")
    ensure_table(workspace)
    row = {"run_id": run_id, "kind": kind, "body": json.dumps(body, ensure_ascii=False),
           "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
           "schema_version": SCHEMA_VERSION}
    return int(workspace.db[TABLE].insert(row).last_pk)


def append_many(workspace: Workspace, rows: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
    """Store several messages (run_id, kind, body) in one transaction."""
    for _, kind, _ in rows:
        if kind not in KINDS:
            raise ValueError(f"unknown chat message kind {kind!r}")
    ensure_table(workspace)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
    with workspace.db.atomic():
        workspace.db[TABLE].insert_all(
            ({"run_id": run_id, "kind": kind, "body": json.dumps(body, ensure_ascii=False),
              "created_at": now, "schema_version": SCHEMA_VERSION}
             for run_id, kind, body in rows), batch_size=500)


def add_run(workspace: Workspace, run_id: str, events: Sequence[dict[str, Any]], *,
            answer: dict[str, Any] | None = None, error: str | None = None) -> None:
    """Store a run's events, then its answer or error, in one transaction."""
    rows: list[tuple[str, str, dict[str, Any]]] = [(run_id, "event", e) for e in events]
    if answer is not None:
        rows.append((run_id, "answer", {k: v for k, v in answer.items() if k != "steps"}))
    if error is not None:
        rows.append((run_id, "error", {"message": error}))
    append_many(workspace, rows)


def add_question(workspace: Workspace, run_id: str, text: str,
                 files: Sequence[str] = ()) -> int:
    body: dict[str, Any] = {"text": text}
    if files:
        body["files"] = list(files)
    return append(workspace, run_id, "question", body)


def add_event(workspace: Workspace, event: dict[str, Any]) -> int:
    """Store a StepEvent (as its JSON dict); its run is the event's `run_id`."""
    return append(workspace, event["run_id"], "event", event)


def add_answer(workspace: Workspace, run_id: str, answer: dict[str, Any]) -> int:
    return append(workspace, run_id, "answer", {k: v for k, v in answer.items() if k != "steps"})


def add_error(workspace: Workspace, run_id: str, message: str) -> int:
    return append(workspace, run_id, "error", {"message": message})


def add_superseded(workspace: Workspace, run_id: str, by: str) -> int:
    """Mark a turn as superseded by the run that asked its edited question."""
    return append(workspace, run_id, "superseded", {"by": by})


def new_upload_batch() -> str:
    """Return a run id for a batch of uploads."""
    return "upload_" + secrets.token_hex(6)


def add_upload(workspace: Workspace, batch: str, name: str, *, ok: bool, message: str,
               tables: int | None = None) -> int:
    body: dict[str, Any] = {"name": name, "ok": ok, "message": message}
    if tables is not None:
        body["tables"] = tables
    return append(workspace, batch, "upload", body)


def messages(workspace: Workspace) -> list[dict[str, Any]]:
    """Return every stored message, oldest first, with its body decoded.

    A row whose body is not valid JSON is skipped (and logged), so one bad row never hides
    the rest of the chat.
    """
    if not workspace.db[TABLE].exists():
        return []
    out = []
    for row in workspace.db.query(f"SELECT id, run_id, kind, body FROM {TABLE} ORDER BY id"):
        try:
            body = json.loads(row["body"])
        except (TypeError, ValueError):
            log.warning("skipping unreadable chat message %s", row["id"])
            continue
        out.append({"id": row["id"], "run_id": row["run_id"], "kind": row["kind"], "body": body})
    return out


def turn_ids(workspace: Workspace) -> list[str]:
    """The run id of each turn, in the order the turns began, without decoding any message:
    the app lays out the chat's slots with these before it reads the turns themselves."""
    if not workspace.db[TABLE].exists():
        return []
    return [row["run_id"] for row in workspace.db.query(
        f"SELECT run_id FROM {TABLE} GROUP BY run_id ORDER BY MIN(id)")]


def group_turns(rows: Iterable[dict[str, Any]]) -> list[Turn]:
    """Group messages into turns, in the order each turn began."""
    turns: dict[str, Turn] = {}
    for row in rows:
        turn = turns.setdefault(row["run_id"], Turn(row["run_id"]))
        kind, body = row["kind"], row["body"]
        if kind == "question":
            turn.question = body
        elif kind == "event":
            turn.events.append(body)
        elif kind == "answer":
            turn.answer = body
        elif kind == "error":
            turn.error = str(body.get("message", ""))
        elif kind == "upload":
            turn.uploads.append(body)
        elif kind == "superseded":
            turn.superseded_by = str(body.get("by", "")) or None
    return list(turns.values())


def turns(workspace: Workspace) -> list[Turn]:
    """Return the chat's turns, oldest first."""
    return group_turns(messages(workspace))
