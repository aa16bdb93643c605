"""Share links in app.sqlite: an app.sqlite from before share links still read; and the
warning when the app serves other machines. Tokens stored only as hashes, expiry and revoke,
in SQLite and in PostgreSQL alike, are tested in tests/test_app_database.py."""

from __future__ import annotations

from storage.chat_index import ChatRecord, SqliteChatIndex
from storage.share_links import SqliteShareLinks


def links(tmp_path) -> SqliteShareLinks:
    return SqliteShareLinks.in_data_dir(tmp_path)


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
    assert "beyond this machine. Unless login is configured" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run"])
    assert "beyond this machine" not in capsys.readouterr().err
