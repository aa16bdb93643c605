"""Facts about a whole table that the rules consult on every question: which rows restate
others (totals, repeated headers), which columns hold only years, the words the table writes.

Finding them reads every cell (in SQL where the table allows: `agent/table_facts.py`,
`agent/cell_scan.py`), so each is computed once per version of a table and of the rules,
stored in the workspace (`storage/table_profiles.py`) and kept on the frame: a question then
costs the columns it names, not the table, in this process and the next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import orjson

from agent import stop
from agent.frame import Frame
from storage.table_profiles import KEYED, read_fact, read_keys, write_fact, write_keyed_fact

T = TypeVar("T")

_RULE_FILES = ("agent/solver.py", "agent/grounding.py", "agent/frame.py", "agent/table_facts.py",
               "agent/cell_scan.py", "agent/table_profile.py", "agent/column_doubts.py",
               "agent/column_forms.py", "agent/column_facts.py", "agent/display.py",
               "agent/text.py", "ingest/values.py", "ingest/labels.py")
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


def keyed_fact(frame: Frame, name: str, compute: Callable[[Frame], T],
               items: Callable[[T], Iterable[tuple[str, Any]]],
               stored: Callable[[StoredKeys], T]) -> T:
    """A fact as big as the table, read a key at a time: kept on the frame, else made by
    `stored` over its keys in the workspace, else computed (and stored by key, `items` giving
    each key with its JSON data, for the next process)."""
    if name in frame.memo:
        return frame.memo[name]
    db = frame.source.db if frame.source is not None else None
    if db is not None and read_fact(db, frame.table, name, frame.version, RULES) == KEYED:
        found = stored(StoredKeys(frame, name))
    else:
        found = compute(frame)
        if db is not None and write_keyed_fact(
                db, frame.table, name, frame.version, RULES,
                ((key, orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode())
                 for key, value in stop.checked(items(found)))):
            # Read back by key from now on, as the next process does: the computed fact of a
            # tall table is hundreds of MB (640,000 labels), held while the next is computed.
            found = stored(StoredKeys(frame, name))
    frame.memo[name] = found
    return found


class StoredKeys:
    """The keys of a fact stored by key, each read once (on the frame's current connection)
    and kept."""

    def __init__(self, frame: Frame, name: str) -> None:
        self._frame = frame
        self._name = name
        self._read: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        """The JSON data of a key, None when the fact has no such key."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The JSON data of those of these keys the fact has."""
        keys = list(dict.fromkeys(keys))
        missing = [k for k in keys if k not in self._read]
        if missing:
            frame = self._frame
            assert frame.source is not None  # stored facts are read from the workspace
            found = read_keys(frame.source.db, frame.table, self._name, frame.version, RULES,
                              missing)
            for k in missing:
                self._read[k] = orjson.loads(found[k]) if k in found else None
        return {k: v for k in keys if (v := self._read[k]) is not None}
