"""Remove workspaces nobody used: no file, no transcript, untouched for a day.

Chats made before their id was minted lazily (at the first upload or question) left one such
workspace per page visit; a workspace whose upload failed before anything was recorded is
another. The app runs this once per process at start.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import time
from pathlib import Path

log = logging.getLogger(__name__)

STALE_AFTER_S = 24 * 3600
_DATA_TABLES = ("sources", "chat_messages")
"""A workspace with a row in either holds something a user made."""


def remove_stale(data_dir: str | Path, older_than_s: float = STALE_AFTER_S,
                 now: float | None = None) -> list[str]:
    """Delete the unused workspaces under `data_dir` last changed more than `older_than_s`
    ago; return their ids."""
    root = Path(data_dir) / "workspaces"
    if not root.is_dir():
        return []
    cutoff = (time.time() if now is None else now) - older_than_s
    removed = []
    for workspace in sorted(p for p in root.iterdir() if p.is_dir()):
        if _last_change(workspace) < cutoff and _unused(workspace):
            shutil.rmtree(workspace, ignore_errors=True)
            removed.append(workspace.name)
    if removed:
        log.info("removed %d unused workspaces older than %.0f h", len(removed),
                 older_than_s / 3600)
    return removed


def _last_change(workspace: Path) -> float:
    return max(p.stat().st_mtime for p in [workspace, *workspace.rglob("*")])


def _unused(workspace: Path) -> bool:
    """No stored file, no transcript row, nothing in files/ (unreadable: keep it)."""
    if any((workspace / "files").glob("*")):
        return False
    db = workspace / "workspace.sqlite"
    if not db.exists():
        return not any(workspace.iterdir())
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            names = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            return not any(conn.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchone()
                           for table in _DATA_TABLES if table in names)
        finally:
            conn.close()
    except sqlite3.Error:
        log.warning("kept workspace %s: its database could not be read", workspace.name)
        return False
