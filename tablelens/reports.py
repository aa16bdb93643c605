"""Reports of wrong answers: a user's "this answer is wrong", kept in the chat's workspace with
the question, the answer and its whole trace, so it can be looked at and used as evaluation
material (`tablelens reports`).

One row per report in `wrong_answers` of `workspace.sqlite`, written in one statement: the
turn as the transcript holds it, plus the user's note. Reporting the same turn again replaces
its note.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from storage.workspace import Workspace
from tablelens import chat_store

TABLE = "wrong_answers"
NOTE_MAX_CHARS = 2000


@dataclass(frozen=True)
class Report:
    """One reported answer."""

    run_id: str
    question: str
    answer: dict[str, Any] | None
    steps: list[dict[str, Any]]
    note: str
    reported_at: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "question": self.question, "answer": self.answer,
                "steps": self.steps, "note": self.note, "reported_at": self.reported_at}


class UnknownTurn(LookupError):
    """The chat has no answered question with this run id."""


def report(workspace: Workspace, run_id: str, note: str = "") -> Report:
    """Keep the turn `run_id` as reported wrong, with the user's note; return the report."""
    turn = next((t for t in chat_store.turns(workspace)
                 if t.run_id == run_id and t.question is not None), None)
    if turn is None or turn.answer is None:
        raise UnknownTurn(run_id)
    found = Report(run_id=run_id, question=str(turn.question.get("text", "")),
                   answer=turn.answer, steps=list(turn.events),
                   note=note.strip()[:NOTE_MAX_CHARS],
                   reported_at=datetime.now(UTC).isoformat(timespec="seconds"))
    workspace.db[TABLE].insert(
        {"run_id": found.run_id, "question": found.question,
         "answer": json.dumps(found.answer, ensure_ascii=False, default=str),
         "steps": json.dumps(found.steps, ensure_ascii=False, default=str),
         "note": found.note, "reported_at": found.reported_at},
        pk="run_id", replace=True)
    return found


def reports(workspace: Workspace) -> list[Report]:
    """The chat's reports, oldest first."""
    if not workspace.db[TABLE].exists():
        return []
    return [Report(run_id=r["run_id"], question=r["question"], answer=json.loads(r["answer"]),
                   steps=json.loads(r["steps"]), note=r["note"], reported_at=r["reported_at"])
            for r in workspace.db.query(f"SELECT * FROM {TABLE} ORDER BY reported_at, rowid")]


def reported_ids(workspace: Workspace) -> set[str]:
    """The run ids of the chat's reported turns."""
    if not workspace.db[TABLE].exists():
        return set()
    return {r["run_id"] for r in workspace.db.query(f"SELECT run_id FROM {TABLE}")}
