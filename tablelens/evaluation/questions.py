"""Read a questions file: JSONL in the layout of shared/bench/README.md.

Each line holds `id`, `table` (relative to the questions file's folder), `question`, and
optionally `answers`, `answers_canon`, `scale`, `paragraphs`. A bad line is skipped and
reported, never fatal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

QUESTIONS_FILE = "questions.jsonl"
"""The questions file of a suite folder."""
REQUIRED_KEYS = ("id", "table", "question")

Problem = dict[str, str]
"""An input that failed, as the command line lists it: {"source", "message"}."""


def load_questions(path: str | Path, *, problems: list[Problem] | None = None
                   ) -> list[dict[str, Any]]:
    """Read a questions JSONL file; skip and report the lines that are not valid questions.

    A bad line (not JSON, not an object, missing `id`, `table` or `question`, a repeated `id`)
    is appended to `problems` as {"source": "file:line", "message"}, or logged as a warning
    when no list is given; the other lines are still returned.
    """
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    for source, line in _lines(Path(path)):
        try:
            question = _question(line, seen)
        except ValueError as exc:
            if problems is None:
                log.warning("%s: %s", source, exc)
            else:
                problems.append({"source": source, "message": str(exc)})
            continue
        seen.add(question["id"])
        questions.append(question)
    return questions


def _lines(path: Path) -> Iterable[tuple[str, str]]:
    """Yield (file:line, text) for each non-blank line."""
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if line.strip():
                yield f"{path}:{number}", line


def _question(line: str, seen: set[str]) -> dict[str, Any]:
    """Parse and check one question line; raise ValueError saying what is wrong."""
    try:
        question = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}).") from None
    if not isinstance(question, dict):
        raise ValueError("not a JSON object.")
    missing = [key for key in REQUIRED_KEYS if not isinstance(question.get(key), str)]
    if missing:
        raise ValueError(f"missing or not text: {', '.join(missing)}.")
    if question["id"] in seen:
        # Answers are joined to questions by id: a repeated id would be scored twice.
        raise ValueError(f"repeated id {question['id']!r}.")
    return question


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read the JSON objects of a JSONL file we wrote ourselves."""
    return [json.loads(line) for _, line in _lines(path)]
