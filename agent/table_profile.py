"""Facts about a whole table that the rules consult on every question: which rows restate
others (totals, repeated headers), which columns hold only years, the words the table writes.

Finding them reads every cell, so each is computed once per version of a table and of the
rules, stored in the workspace (`storage/table_profiles.py`) and kept on the frame: a
question then costs the columns it names, not the table, in this process and the next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson

from agent import stop
from agent.frame import Frame
from storage.table_profiles import read_fact, write_fact

T = TypeVar("T")

_RULE_FILES = ("agent/solver.py", "agent/grounding.py", "agent/frame.py",
               "agent/table_profile.py", "agent/text.py", "ingest/values.py", "ingest/labels.py")
RULES = hashlib.sha256(b"".join(
    (Path(__file__).resolve().parents[1] / name).read_bytes() for name in _RULE_FILES)
).hexdigest()[:16]
"""A digest of the code that computes facts: a stored fact made by other rules is computed
again rather than trusted."""


def table_fact(frame: Frame, name: str, compute: Callable[[Frame], T],
               dump: Callable[[T], Any], load: Callable[[Any], T]) -> T:
    """A fact of the frame's table: kept on the frame, else stored in the workspace, else
    computed (and stored for the next process). `dump` and `load` go to and from JSON data."""
    if name in frame.memo:
        return frame.memo[name]
    db = frame.source.db if frame.source is not None else None
    stored = read_fact(db, frame.table, name, frame.version, RULES) if db is not None else None
    # orjson, and a check between the parts: a tall table's facts are megabytes of JSON.
    if stored is not None:
        found = load(orjson.loads(stored))
    else:
        found = compute(frame)
        if db is not None:
            text = orjson.dumps(dump(found), option=orjson.OPT_NON_STR_KEYS).decode()
            stop.check()
            write_fact(db, frame.table, name, frame.version, RULES, text)
    frame.memo[name] = found
    return found
