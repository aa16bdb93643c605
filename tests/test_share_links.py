"""Share links in app.sqlite: tokens stored only as hashes, expiry, revoke, and an app.sqlite
from before share links still read."""

from __future__ import annotations

import datetime as dt
import sqlite3

from storage.chat_index import ChatRecord, SqliteChatIndex
from storage.share_links import SqliteShareLinks, token_hash

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)


def links(tmp_path) -> SqliteShareLinks:
    return SqliteShareLinks.in_data_dir(tmp_path)


def test_a_token_is_random_long_and_stored_only_as_its_sha256(tmp_path):
    store = links(tmp_path)
    link, token = store.add("l1", "A" * 22, title="Costs", now=T0)
    other, token2 = store.add("l2", "A" * 22, title="Costs", now=T0)
    assert token != token2 and len(token) >= 22 and token != "A" * 22
    conn = sqlite3.connect(tmp_path / "app.sqlite")
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert token not in dump and token2 not in dump
    assert token_hash(token) in dump
    assert store.resolve(token, now=T0) == link
    assert store.resolve(token2, now=T0) == other


def test_unknown_and_empty_tokens_open_nothing(tmp_path):
    store = links(tmp_path)
    store.add("l1", "A" * 22, title="Costs", now=T0)
    assert store.resolve("not-a-token", now=T0) is None
    assert store.resolve("", now=T0) is None


def test_a_link_expires_at_its_time_and_stays_listed_until_revoked(tmp_path):
    store = links(tmp_path)
    link, token = store.add("l1", "C" * 22, title="Costs", expires_in=dt.timedelta(days=1),
                            now=T0)
    assert store.resolve(token, now=T0 + dt.timedelta(hours=23)) == link
    assert store.resolve(token, now=T0 + dt.timedelta(days=1)) is None
    assert [x.id for x in store.for_chat("C" * 22)] == ["l1"]
    assert [x.id for x in store.unusable(now=T0 + dt.timedelta(days=2))] == ["l1"]
    assert store.unusable(now=T0) == []
    never, forever = store.add("l2", "C" * 22, title="Costs", now=T0)
    assert store.resolve(forever, now=T0 + dt.timedelta(days=3650)) == never


def test_a_revoked_link_opens_nothing_and_leaves_the_list(tmp_path):
    store = links(tmp_path)
    _, token = store.add("l1", "C" * 22, title="Costs", now=T0)
    _, kept = store.add("l2", "C" * 22, title="Costs", now=T0 + dt.timedelta(seconds=1))
    assert store.revoke("l1", now=T0) is True
    assert store.revoke("l1", now=T0) is False  # once is enough
    assert store.resolve(token, now=T0) is None
    assert store.resolve(kept, now=T0) is not None
    assert [x.id for x in store.for_chat("C" * 22)] == ["l2"]
    assert [x.id for x in store.unusable(now=T0)] == ["l1"]


def test_deleting_a_chat_removes_its_links(tmp_path):
    store = links(tmp_path)
    _, token = store.add("l1", "C" * 22, title="Costs", now=T0)
    store.add("l2", "D" * 22, title="Other", now=T0)
    assert [x.id for x in store.delete_chat("C" * 22)] == ["l1"]
    assert store.resolve(token, now=T0) is None and store.get("l2") is not None


def test_an_app_sqlite_from_before_share_links_keeps_its_chats(tmp_path):
    index = SqliteChatIndex.in_data_dir(tmp_path)
    index.upsert(ChatRecord("C" * 22, "Costs", created="2025-01-01T00:00:00+00:00",
                            updated="2025-01-01T00:00:00+00:00"))
    store = links(tmp_path)  # opens the old file and adds its table
    assert [r.title for r in SqliteChatIndex.in_data_dir(tmp_path).list()] == ["Costs"]
    assert store.for_chat("C" * 22) == []
    links(tmp_path)  # opening it again changes nothing


def test_binding_beyond_loopback_is_told_apart():
    from tablelens.exposure import beyond_loopback

    assert not any(beyond_loopback(a) for a in ("127.0.0.1", "localhost", "::1", "", None))
    assert all(beyond_loopback(a) for a in ("0.0.0.0", "192.168.1.5", "::", "myhost"))


def test_tablelens_run_warns_when_it_serves_other_machines(monkeypatch, capsys):
    import pytest

    from tablelens import cli

    def become_the_server(*args):  # instead of replacing this process with Streamlit
        raise SystemExit(0)

    monkeypatch.setattr(cli.os, "execve", become_the_server)
    monkeypatch.setattr(cli.os, "chdir", lambda path: None)
    with pytest.raises(SystemExit):
        cli.main(["run", "--address", "0.0.0.0"])
    assert "has no login" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run"])
    assert "has no login" not in capsys.readouterr().err
