"""The chat index in app.sqlite (storage/chat_index.py) and the indexing of workspace folders
made before it (tablelens/chats.py), on real SQLite files. What the index does, in SQLite and
in PostgreSQL alike, is tested in tests/test_app_database.py."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from storage.chat_index import (
    UNTITLED,
    ChatRecord,
    SqliteChatIndex,
    title_of_question,
)
from storage.workspace import Workspace, new_workspace_id
from tablelens import chat_store, chats
from tablelens.checkpoints import open_checkpointer


@pytest.fixture
def index(tmp_path) -> SqliteChatIndex:
    return SqliteChatIndex.in_data_dir(tmp_path)


def test_a_title_is_the_first_question_on_one_line_cut_at_a_word():
    assert title_of_question("  What was the\n total rent?  ") == "What was the total rent?"
    long = ("What was the total operating expense for every department of the company in "
            "the second quarter of 2024?")
    title = title_of_question(long)
    assert len(title) <= 60 and title.endswith("…")
    assert long.startswith(title[:-1]) and long[len(title) - 1] == " "  # cut between words


def test_the_index_shares_app_sqlite_with_the_checkpoints_and_takes_several_threads(tmp_path):
    saver = open_checkpointer(tmp_path)
    index = SqliteChatIndex.in_data_dir(tmp_path)
    errors: list[BaseException] = []

    def use(n: int) -> None:
        try:
            for i in range(20):
                index.touch(f"chat{n}", question=f"Question {n}", files=i)
                index.list("question")
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=use, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert sorted(r.id for r in index.list()) == ["chat0", "chat1", "chat2", "chat3"]
    assert {r.files for r in index.list()} == {19}
    conn = sqlite3.connect(tmp_path / "app.sqlite")
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"chats", "checkpoints", "writes"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    saver.conn.close()


def test_a_record_round_trips_through_a_dict():
    record = ChatRecord("x" * 22, "Rent", "2026-01-01T00:00:00+00:00",
                        "2026-01-02T00:00:00+00:00", files=3, title_from="user")
    assert ChatRecord.from_dict(record.to_dict()) == record


def test_folders_without_a_row_are_indexed_and_rows_without_a_folder_dropped(tmp_path, index,
                                                                            samples):
    asked, uploaded, failed, unused = (new_workspace_id() for _ in range(4))
    ws = Workspace.in_data_dir(tmp_path, asked)
    chat_store.add_upload(ws, "upload_1", "hr.xlsx", ok=True, message="Added hr.xlsx")
    chat_store.add_question(ws, "r1", "Total rent?")
    ws.close()
    ws = Workspace.in_data_dir(tmp_path, uploaded)
    ws.add_file(samples / "hr.xlsx")
    ws.close()
    ws = Workspace.in_data_dir(tmp_path, failed)
    chat_store.add_upload(ws, "upload_1", "old.xls", ok=False, message="old.xls: legacy")
    ws.close()
    Workspace.in_data_dir(tmp_path, unused).close()
    (tmp_path / "workspaces" / "not-a-chat-id").mkdir()
    index.touch("G" * 22)  # its folder is gone

    assert sorted(chats.index_unlisted(tmp_path, index)) == sorted([asked, uploaded, failed])
    got = {r.id: (r.title, r.files) for r in index.list()}
    assert got == {asked: ("Total rent?", 0), uploaded: ("hr.xlsx", 1),
                   failed: (UNTITLED, 0)}
    assert index.get(asked).title_from == "question"
    assert chats.index_unlisted(tmp_path, index) == []  # listed now: nothing to do

    # With the index in PostgreSQL, a server whose data directory is not the shared one must
    # not drop the others' chats: the app then keeps rows without a folder.
    assert chats.index_unlisted(tmp_path / "elsewhere", index, drop_missing=False) == []
    assert len(index.list()) == 3
    chats.index_unlisted(tmp_path / "elsewhere", index)
    assert index.list() == []


def test_the_list_says_when_in_words():
    import datetime as dt

    now = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
    record = ChatRecord("x", "Rent", now.isoformat(), (now - dt.timedelta(days=40)).isoformat(),
                        files=1)
    caption = chats.chat_caption(record, current=True, now=now)
    assert caption.startswith("This chat · 1 file · ") and "Oct" in caption
    assert chats.when_text(now.isoformat(), now).startswith("today, ")
    assert chats.when_text((now - dt.timedelta(days=400)).isoformat(), now).endswith("2025")
