"""Who may open a chat without a share link (issue 19), in one place for every page and action.

With login, a chat opens only for its owner (`ChatRecord.owner`, the ID token's issuer and
subject). A chat with no owner (made while login was off, or before owners were recorded)
then opens for nobody: it could belong to anyone, so no one can claim it by knowing its URL.
Such a chat stays readable by turning login off, or through a share link made then, whose
fork belongs to whoever makes it. Without login there is nobody to check: a chat's URL is
enough, as the server's banner says (`tablelens/exposure.py`).
"""

from __future__ import annotations

from storage.chat_index import ChatRecord, Owner


def may_open(record: ChatRecord | None, user: Owner | None) -> bool:
    """Whether `user` (None: login is off) may open, rename, delete or share the chat
    `record` (None: the index has no such chat)."""
    if user is None:
        return True
    return record is not None and record.owner == user
