"""Share a chat as a read-only snapshot, fork a snapshot into a private chat, and clean up.

Why a snapshot copy rather than a high-water mark over the live chat: a link must show the
chat as it was, and the live workspace keeps changing in ways a message count cannot undo (a
file removed, a header corrected, the LLM cache, the owner's reports). A copy taken with the
backup API (`storage/snapshots.py`) is consistent, can be scrubbed of what a viewer must not
read, and is exactly what a fork needs; it costs the chat's disk space once per link.

Layout under the data directory: `shares/<link id>/` holds the snapshot (a workspace folder);
the chat's LangGraph state at that moment is the checkpoint thread `share-<link id>`, so a
fork's follow-up questions read the snapshot's last turn, not a later one. Revoking a link,
or deleting its chat, removes both. No Streamlit here: the app calls these.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent.llm.settings import SERVER_NAMED
from storage.chat_index import ChatIndex, ChatRecord, Owner, clean_title, now_iso
from storage.share_links import ShareLink, ShareLinks, new_link_id
from storage.snapshots import copy_workspace, scrub
from storage.workspace import Workspace, new_workspace_id
from tablelens import chat_store
from tablelens.checkpoints import copy_thread

log = logging.getLogger(__name__)

SHARES = "shares"
EXPIRY_CHOICES: dict[str, dt.timedelta | None] = {
    "Never": None, "1 day": dt.timedelta(days=1), "7 days": dt.timedelta(days=7),
    "30 days": dt.timedelta(days=30)}
"""What the owner picks a link's expiry from."""


def snapshot_root(data_dir: str | Path, link_id: str) -> Path:
    return Path(data_dir) / SHARES / link_id


def snapshot_thread(link_id: str) -> str:
    """The checkpoint thread of a link's snapshot (never a chat id: those are 22 characters
    with no prefix)."""
    return f"share-{link_id}"


def share_chat(data_dir: str | Path, workspace: Workspace, *, links: ShareLinks,
               checkpointer: Any, title: str, allow_files: bool = False,
               expires_in: dt.timedelta | None = None, hidden: Iterable[str] = (),
               now: dt.datetime | None = None) -> tuple[ShareLink, str]:
    """Snapshot the chat and make its link; return the link and its token (shown once).

    `hidden`: strings the snapshot's transcript must not contain (API keys, model servers);
    the server's paths, and any model server a message names, are always hidden. The link
    exists only once its snapshot is whole.
    """
    link_id = new_link_id()
    root = snapshot_root(data_dir, link_id)
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        copy_workspace(workspace.root, root)
        scrub(root / "workspace.sqlite", [*server_paths(data_dir, workspace.root), *hidden],
              [SERVER_NAMED])
        copy_thread(checkpointer, workspace.id, snapshot_thread(link_id))
        snapshot = Workspace(root)
        try:
            # Questions asked, as a reader counts the chat (an upload is a turn too).
            turns = sum(1 for turn in chat_store.turns(snapshot) if turn.question is not None)
        finally:
            snapshot.close()
        return links.add(link_id, workspace.id, title=title, turns=turns,
                         allow_files=allow_files, expires_in=expires_in, now=now)
    except BaseException:
        remove_snapshot(data_dir, link_id, checkpointer)
        raise


def server_paths(data_dir: str | Path, root: Path) -> list[str]:
    """The server's own paths, as given and resolved: never shown to a viewer."""
    out = []
    for path in (Path(data_dir), root):
        out += [str(path), str(path.resolve())]
    return out


def update_link(data_dir: str | Path, workspace: Workspace, link: ShareLink, *,
                links: ShareLinks, checkpointer: Any, title: str, hidden: Iterable[str] = (),
                now: dt.datetime | None = None) -> tuple[ShareLink, str]:
    """A new link of the chat as it is now, with the old link's options; the old one is
    revoked (its snapshot would only show an older state of the same chat)."""
    expires_in = None
    if link.expires is not None:
        expires_in = (dt.datetime.fromisoformat(link.expires)
                      - dt.datetime.fromisoformat(link.created))
    made = share_chat(data_dir, workspace, links=links, checkpointer=checkpointer, title=title,
                      allow_files=link.allow_files, expires_in=expires_in, hidden=hidden,
                      now=now)
    revoke_link(data_dir, link.id, links=links, checkpointer=checkpointer)
    return made


def revoke_link(data_dir: str | Path, link_id: str, *, links: ShareLinks,
                checkpointer: Any) -> None:
    """Stop the link at once, then remove its snapshot."""
    links.revoke(link_id)
    remove_snapshot(data_dir, link_id, checkpointer)


def remove_snapshot(data_dir: str | Path, link_id: str, checkpointer: Any) -> None:
    shutil.rmtree(snapshot_root(data_dir, link_id), ignore_errors=True)
    checkpointer.delete_thread(snapshot_thread(link_id))


def forget_chat(data_dir: str | Path, chat_id: str, *, links: ShareLinks,
                checkpointer: Any) -> None:
    """A deleted chat's links stop working and their snapshots go."""
    for link in links.delete_chat(chat_id):
        remove_snapshot(data_dir, link.id, checkpointer)


def purge_unusable(data_dir: str | Path, *, links: ShareLinks, checkpointer: Any,
                   now: dt.datetime | None = None) -> int:
    """Remove the snapshots of links revoked or expired (the app does it once per process);
    return how many were still on disk."""
    removed = 0
    for link in links.unusable(now):
        if snapshot_root(data_dir, link.id).exists():
            remove_snapshot(data_dir, link.id, checkpointer)
            removed += 1
    return removed


def fork(data_dir: str | Path, link: ShareLink, *, index: ChatIndex,
         checkpointer: Any, owner: Owner | None = None) -> str:
    """Copy a link's snapshot into a new private chat owned by `owner` (the viewer who asked
    for it; None without login); return its id.

    The copy gets the snapshot's files, workspace and transcript, and the snapshot's graph
    state as its own thread (thread id = the new chat id), so follow-ups work. The shared
    chat and its snapshot are only read.
    """
    chat_id = new_workspace_id()
    target = Path(data_dir) / "workspaces" / chat_id
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        copy_workspace(snapshot_root(data_dir, link.id), target)
        copy_thread(checkpointer, snapshot_thread(link.id), chat_id)
        workspace = Workspace(target)
        try:
            files = len(workspace.sources())
        finally:
            workspace.close()
        now = now_iso()
        index.upsert(ChatRecord(chat_id, clean_title(f"{link.title} (copy)"), created=now,
                                updated=now, files=files, title_from="question",
                                owner=owner))
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        checkpointer.delete_thread(chat_id)
        raise
    return chat_id
