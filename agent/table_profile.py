"""Facts about a whole table that the rules consult on every question: which rows restate
others (totals, repeated headers), which columns hold only years, the words the table writes.

Finding them reads every cell, so each is computed once per version of a table and of the
rules, stored in the workspace (`storage/table_profiles.py`) and kept on the frame: a
question then costs the columns it names, not the table, in this process and the next.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

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
    if stored is not None:
        found = load(json.loads(stored))
    else:
        found = compute(frame)
        if db is not None:
            write_fact(db, frame.table, name, frame.version, RULES,
                       json.dumps(dump(found), ensure_ascii=False))
    frame.memo[name] = found
    return found
