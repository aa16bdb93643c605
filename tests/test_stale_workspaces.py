"""Unused workspaces (no file, no transcript) older than a day are removed; nothing else is."""

from __future__ import annotations

import os
import time

from storage.workspace import Workspace
from tablelens import chat_store
from tablelens.stale_workspaces import STALE_AFTER_S, remove_stale


def _age(path, seconds: float) -> None:
    then = time.time() - seconds
    for p in [path, *path.rglob("*")]:
        os.utime(p, (then, then))


def test_only_old_unused_workspaces_are_removed(tmp_path, samples):
    made = {}
    for name in ("old_empty", "new_empty", "old_file", "old_chat", "old_broken"):
        ws = Workspace.in_data_dir(tmp_path, name)
        if name == "old_file":
            ws.add_file(samples / "financial.xlsx")
        if name == "old_chat":
            chat_store.add_question(ws, "r1", "Total rent?")
        ws.close()
        made[name] = ws.root
    (made["old_broken"] / "workspace.sqlite").write_bytes(b"not a database" * 64)
    for name, root in made.items():
        if name.startswith("old"):
            _age(root, STALE_AFTER_S + 60)
    assert remove_stale(tmp_path) == ["old_empty"]
    assert sorted(p.name for p in (tmp_path / "workspaces").iterdir()) == [
        "new_empty", "old_broken", "old_chat", "old_file"]
    assert remove_stale(tmp_path) == []


def test_a_data_dir_without_workspaces_is_fine(tmp_path):
    assert remove_stale(tmp_path / "nowhere") == []
