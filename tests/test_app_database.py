"""The app's shared records (chat index, share links, LangGraph checkpoints) behave the same in
app.sqlite and in PostgreSQL: every test here runs against both backends, built through the
one factory the app uses (`Settings.app_database`, `tablelens/app_database.py`).

PostgreSQL is a real server started by these tests (tests/postgres_server.py), once per test
session, with a new database per test. Its variant is skipped only when the server binaries
are not installed; `scripts/system-deps.sh` (run by `make test` and `.ci/run`) installs them,
and `.ci/run` sets TABLELENS_TEST_POSTGRES=required so that CI fails rather than skips.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import multiprocessing
import os
import secrets
import sqlite3
import threading
from pathlib import Path

import pytest

from storage.chat_index import UNTITLED, ChatRecord, EmptyTitle, Owner, UnknownChat
from storage.postgres import DatabaseUnavailable, open_pool
from storage.share_links import token_hash
from tablelens.app_database import AppDatabase
from tablelens.checkpoints import copy_thread
from tablelens.settings import Settings
from tests.postgres_server import PostgresServer, bin_dir
from tests.storage_workers import counter_graph, thread, write_everything

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)
CHAT = "C" * 22


@pytest.fixture(scope="session")
def postgres_server():
    bindir = bin_dir()
    if bindir is None and os.environ.get("TABLELENS_TEST_POSTGRES") == "required":
        pytest.fail("PostgreSQL's server binaries are not installed (no "
                    "/usr/lib/postgresql/*/bin/pg_ctl), and TABLELENS_TEST_POSTGRES=required "
                    "(.ci/run) asks for that backend to be tested: run scripts/system-deps.sh "
                    "as root, or apt-get install postgresql")
    if bindir is None:
        pytest.skip("PostgreSQL's server binaries are not installed (no "
                    "/usr/lib/postgresql/*/bin/pg_ctl): install the Debian package "
                    "`postgresql` (scripts/system-deps.sh does) to test that backend")
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@dataclasses.dataclass
class Backend:
    """One backend for one test: its data directory and, for PostgreSQL, its database."""

    name: str
    data_dir: Path
    url: str | None = None
    opened: list[AppDatabase] = dataclasses.field(default_factory=list)

    def open(self) -> AppDatabase:
        """A new AppDatabase, as a (re)started app server gets through its settings."""
        env = {"TABLELENS_DATA_DIR": str(self.data_dir)}
        if self.url:
            env["TABLELENS_DATABASE_URL"] = self.url
        database = Settings.from_env(env).app_database()
        self.opened.append(database)
        return database

    def dump(self) -> str:
        """Every row of the chat and share link tables, as text."""
        if self.url is None:
            conn = sqlite3.connect(self.data_dir / "app.sqlite")
            try:
                return "\n".join(conn.iterdump())
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(self.url) as conn:
            return "\n".join(row[0] for table in ("chats", "share_links")
                             for row in conn.execute(f"SELECT t::text FROM {table} t"))

    def dump_browsers(self) -> str:
        """Every row of the table of which browser opened which chat, as text."""
        if self.url is None:
            conn = sqlite3.connect(self.data_dir / "app.sqlite")
            try:
                return "\n".join(str(row) for row in conn.execute("SELECT * FROM chat_browsers"))
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(self.url) as conn:
            return "\n".join(row[0] for row in conn.execute(
                "SELECT t::text FROM chat_browsers t"))


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    data_dir = tmp_path / "data"
    if request.param == "sqlite":
        made = Backend("sqlite", data_dir)
        yield made
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        name = f"test_{secrets.token_hex(6)}"
        made = Backend("postgresql", data_dir, server.create_database(name))
        yield made
    for database in made.opened:
        database.close()
    if made.url is not None:
        server.drop_database(name)


# The chat index


def test_the_first_question_titles_a_chat_and_a_rename_is_kept(backend):
    index = backend.open().chat_index
    assert index.touch("c1", file_name="hr.xlsx", files=1).title == "hr.xlsx"
    assert index.touch("c1", question="Total rent?").title == "Total rent?"
    assert index.touch("c1", question="And for Q3?").title == "Total rent?"
    assert index.touch("c2").title == UNTITLED
    renamed = index.rename("c1", "  Office\tcosts ")
    assert (renamed.title, renamed.title_from) == ("Office costs", "user")
    index.touch("c1", question="Anything else?", files=2)
    assert index.get("c1").title == "Office costs" and index.get("c1").files == 2
    with pytest.raises(EmptyTitle):
        index.rename("c1", " \n ")
    with pytest.raises(UnknownChat):
        index.rename("nope", "A title")
    assert index.get("c1").title == "Office costs"
    assert index.get("nope") is None


def test_the_list_is_last_used_first_and_searches_titles_in_any_case(backend):
    index = backend.open().chat_index
    for chat_id, question in (("a", "Revenue by region"), ("b", "Total RENT for Q2"),
                              ("c", "Headcount at 50% time"), ("d", "Straße_names")):
        index.touch(chat_id, question=question)
    assert [r.id for r in index.list()] == ["d", "c", "b", "a"]
    index.touch("a")
    assert [r.id for r in index.list()] == ["a", "d", "c", "b"]
    assert [r.id for r in index.list("rent")] == ["b"]
    assert [r.id for r in index.list("50%")] == ["c"]
    assert [r.id for r in index.list("%")] == ["c"]  # a literal percent sign, not a wildcard
    assert [r.id for r in index.list("_")] == ["d"]  # a literal underscore too
    assert [r.id for r in index.list("STRASSE")] == ["d"]  # casefolded alike in both
    assert [r.id for r in index.list("", limit=2)] == ["a", "d"]
    assert index.delete("b") and not index.delete("b")
    assert index.get("b") is None and [r.id for r in index.list()] == ["a", "d", "c"]


def test_a_record_is_stored_as_it_is_and_ties_list_by_id(backend):
    index = backend.open().chat_index
    same = "2026-01-02T00:00:00.000000+00:00"
    for chat_id in ("b", "B", "a"):  # bytewise: "B" < "a" < "b", whatever the locale
        index.upsert(ChatRecord(chat_id, "Rent", created=same, updated=same, files=3,
                                title_from="user"))
    assert [r.id for r in index.list()] == ["B", "a", "b"]
    assert index.get("a") == ChatRecord("a", "Rent", same, same, files=3, title_from="user")
    moved = ChatRecord("a", "Costs", same, "2026-02-01T00:00:00.000000+00:00")
    index.upsert(moved)
    assert index.get("a") == moved and index.list()[0] == moved


ANN = Owner("https://id.example.com", "ann-0001")
BOB = Owner("https://id.example.com", "bob-0002")


def test_a_chat_is_listed_for_its_owner_only_and_keeps_its_first_owner(backend):
    index = backend.open().chat_index
    index.touch("a1", question="Ann's rent?", owner=ANN)
    index.touch("b1", question="Bob's rent?", owner=BOB)
    index.touch("n1", question="Made without login")
    # The same subject at another issuer is another account.
    index.touch("x1", question="Elsewhere", owner=Owner("https://other.example.org",
                                                         ANN.subject))
    assert [r.id for r in index.list(owner=ANN)] == ["a1"]
    assert [r.id for r in index.list("rent", owner=BOB)] == ["b1"]
    assert index.list("ann", owner=BOB) == []
    assert index.get("a1").owner == ANN and index.get("n1").owner is None
    index.touch("a1", question="Later", owner=BOB)  # a use never hands a chat over
    assert index.get("a1").owner == ANN
    assert index.rename("a1", "Ann's costs").owner == ANN
    assert {r.id for r in index.list()} == {"a1", "b1", "n1", "x1"}


def test_a_browser_lists_the_chats_it_opened_and_only_its_cookies_hash_is_kept(backend):
    database = backend.open()
    index = database.chat_index
    first, second = "browser-one-" + "x" * 10, "browser-two-" + "y" * 10
    for chat_id in ("c1", "c2", "c3"):
        index.touch(chat_id, question=f"Question {chat_id}")
    index.remember(first, "c1")
    index.remember(first, "c3")
    index.remember(first, "c3")  # opened again: still one entry
    index.remember(second, "c2")
    assert [r.id for r in index.list(browser=first)] == ["c3", "c1"]
    assert [r.id for r in index.list("c1", browser=first)] == ["c1"]
    assert [r.id for r in index.list(browser=second)] == ["c2"]
    assert index.list(browser="a browser that opened nothing") == []
    assert first not in backend.dump_browsers() and second not in backend.dump_browsers()
    index.delete("c3")
    assert [r.id for r in index.list(browser=first)] == ["c1"]
    assert "c3" not in backend.dump_browsers()


def test_an_index_of_schema_1_opens_with_its_chats_unowned(backend):
    """An index written before owners: its rows read as chats with no owner, and new rows
    get owners beside them."""
    old = ("CREATE TABLE chats (id TEXT PRIMARY KEY, title TEXT NOT NULL, {search}"
           "title_from TEXT NOT NULL DEFAULT 'default', created TEXT NOT NULL, "
           "updated TEXT NOT NULL, files INTEGER NOT NULL DEFAULT 0, "
           "schema_version INTEGER NOT NULL DEFAULT 1)")
    row = ("old", "Old chat", "question", "2025-01-01T00:00:00.000000+00:00", 2)
    if backend.url is None:
        backend.data_dir.mkdir(parents=True)
        conn = sqlite3.connect(backend.data_dir / "app.sqlite")
        conn.execute(old.format(search=""))
        conn.execute("INSERT INTO chats (id, title, title_from, created, updated, files) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (*row[:4], row[3], row[4]))
        conn.commit()
        conn.close()
    else:
        import psycopg

        with psycopg.connect(backend.url) as conn:
            conn.execute(old.format(search="title_search TEXT NOT NULL, "))
            conn.execute("INSERT INTO chats (id, title, title_search, title_from, created, "
                         "updated, files) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (row[0], row[1], row[1].casefold(), row[2], row[3], row[3], row[4]))
    index = backend.open().chat_index
    kept = index.get("old")
    assert (kept.title, kept.files, kept.owner) == ("Old chat", 2, None)
    index.touch("new", question="New chat", owner=ANN)
    assert [r.id for r in index.list(owner=ANN)] == ["new"]
    assert [r.id for r in index.list("old")] == ["old"]
    # No browser has opened it yet: every browser lists it, until one opens it.
    assert [r.id for r in index.list(browser="browser-a")] == ["old"]
    assert [r.id for r in index.list(browser="browser-b")] == ["old"]
    index.remember("browser-a", "old")
    assert [r.id for r in index.list(browser="browser-a")] == ["old"]
    assert index.list(browser="browser-b") == []


def test_a_restarted_server_reads_what_the_last_one_wrote(backend):
    first = backend.open()
    first.chat_index.touch(CHAT, question="Total rent?")
    _, token = first.share_links.add("l1", CHAT, title="Total rent?", now=T0)
    first.close()
    again = backend.open()  # the tables exist now: opening them again changes nothing
    assert again.chat_index.get(CHAT).title == "Total rent?"
    assert again.share_links.resolve(token, now=T0).chat_id == CHAT


def test_only_the_sqlite_backend_writes_app_sqlite(backend):
    backend.open().checkpointer  # noqa: B018 - made on first use
    assert (backend.data_dir / "app.sqlite").exists() == (backend.name == "sqlite")


# Share links


def test_a_token_is_random_long_and_stored_only_as_its_sha256(backend):
    links = backend.open().share_links
    link, token = links.add("l1", CHAT, title="Costs", now=T0)
    other, token2 = links.add("l2", CHAT, title="Costs", turns=3, allow_files=True, now=T0)
    assert token != token2 and len(token) >= 22 and token != CHAT
    dump = backend.dump()
    assert token not in dump and token2 not in dump
    assert token_hash(token) in dump
    assert links.resolve(token, now=T0) == link
    assert links.resolve(token2, now=T0) == other
    assert (other.turns, other.allow_files) == (3, True) and links.get("l2") == other


def test_unknown_and_empty_tokens_open_nothing(backend):
    links = backend.open().share_links
    links.add("l1", CHAT, title="Costs", now=T0)
    assert links.resolve("not-a-token", now=T0) is None
    assert links.resolve("", now=T0) is None
    assert links.get("nope") is None


def test_a_link_expires_at_its_time_and_stays_listed_until_revoked(backend):
    links = backend.open().share_links
    link, token = links.add("l1", CHAT, title="Costs", expires_in=dt.timedelta(days=1), now=T0)
    assert links.resolve(token, now=T0 + dt.timedelta(hours=23)) == link
    assert links.resolve(token, now=T0 + dt.timedelta(days=1)) is None
    assert [x.id for x in links.for_chat(CHAT)] == ["l1"]
    assert [x.id for x in links.unusable(now=T0 + dt.timedelta(days=2))] == ["l1"]
    assert links.unusable(now=T0) == []
    never, forever = links.add("l2", CHAT, title="Costs", now=T0 + dt.timedelta(seconds=1))
    assert links.resolve(forever, now=T0 + dt.timedelta(days=3650)) == never
    assert [x.id for x in links.for_chat(CHAT)] == ["l2", "l1"]  # newest first


def test_a_revoked_link_opens_nothing_and_leaves_the_list(backend):
    links = backend.open().share_links
    _, token = links.add("l1", CHAT, title="Costs", now=T0)
    _, kept = links.add("l2", CHAT, title="Costs", now=T0 + dt.timedelta(seconds=1))
    assert links.revoke("l1", now=T0) is True
    assert links.revoke("l1", now=T0) is False  # once is enough
    assert links.revoke("nope", now=T0) is False
    assert links.resolve(token, now=T0) is None
    assert links.resolve(kept, now=T0) is not None
    assert [x.id for x in links.for_chat(CHAT)] == ["l2"]
    assert [x.id for x in links.unusable(now=T0)] == ["l1"]


def test_deleting_a_chat_removes_its_links(backend):
    links = backend.open().share_links
    _, token = links.add("l1", CHAT, title="Costs", now=T0)
    links.add("l2", "D" * 22, title="Other", now=T0)
    assert [x.id for x in links.delete_chat(CHAT)] == ["l1"]
    assert links.delete_chat(CHAT) == []
    assert links.resolve(token, now=T0) is None and links.get("l2") is not None


# Checkpoints


def test_checkpoints_are_written_read_copied_and_deleted(backend):
    graph = counter_graph(backend.open().checkpointer)
    for _ in range(2):
        graph.invoke({"notes": []}, thread("source"))
    assert graph.get_state(thread("source")).values == {"count": 2,
                                                        "notes": ["run 1", "run 2"]}

    saver = backend.open().checkpointer  # a restarted server reads the same state
    assert len(list(saver.list(thread("source")))) >= 2  # each step's checkpoint is kept
    assert copy_thread(saver, "source", "copy") is True
    assert copy_thread(saver, "nothing here", "other") is False
    graph = counter_graph(saver)
    graph.invoke({"notes": []}, thread("copy"))
    assert graph.get_state(thread("copy")).values["count"] == 3
    assert graph.get_state(thread("source")).values["count"] == 2  # the source is untouched

    saver.delete_thread("source")
    assert graph.get_state(thread("source")).values == {}
    assert saver.get_tuple(thread("source")) is None
    assert graph.get_state(thread("copy")).values["notes"] == ["run 1", "run 2", "run 3"]


def test_an_answered_question_round_trips_with_the_agents_own_types(backend, tmp_path):
    from agent.graph import build_graph
    from agent.plan import Lookup
    from agent.results import Result
    from agent.run import answer_question
    from storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(Path(__file__).parent / "samples" / "financial.xlsx")
        answer = answer_question(ws, "What was the revenue in Q3 2024?",
                                 graph=build_graph(backend.open().checkpointer),
                                 thread_id=CHAT)
    finally:
        ws.close()
    assert answer.answer == "710"
    restored = build_graph(backend.open().checkpointer).get_state(thread(CHAT)).values
    assert isinstance(restored["plan"], Lookup) and isinstance(restored["result"], Result)
    assert restored["result"].values == answer.values


# Several writers at once


def test_several_threads_write_at_once_and_lose_nothing(backend):
    database = backend.open()
    index, links = database.chat_index, database.share_links
    graph = counter_graph(database.checkpointer)
    _, token = links.add("contested", CHAT, title="Costs", now=T0)
    rounds, workers = 12, 4
    start = threading.Barrier(workers)
    errors: list[BaseException] = []
    revoked: list[bool] = []

    def use(n: int) -> None:
        try:
            start.wait(30)
            for i in range(rounds):
                index.touch(f"chat{n}", question=f"Question {n}", files=i)
                index.touch("shared", question=f"From {n}")
                if n == 0 and i == rounds // 2:
                    index.rename("shared", "Kept by the rename")
                links.add(f"t{n}-{i}", f"chat{n}", title="Costs")
                graph.invoke({"notes": []}, thread(f"thread{n}"))
                index.list("question")
            revoked.append(links.revoke("contested", now=T0))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=use, args=(n,)) for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert {r.id: r.files for r in index.list()} == {
        **{f"chat{n}": rounds - 1 for n in range(workers)}, "shared": 0}
    shared = index.get("shared")
    assert (shared.title, shared.title_from) == ("Kept by the rename", "user")
    assert sorted(revoked) == [False] * (workers - 1) + [True]  # exactly one revoke took it
    assert links.resolve(token, now=T0) is None
    assert sum(len(links.for_chat(f"chat{n}")) for n in range(workers)) == rounds * workers
    for n in range(workers):
        assert graph.get_state(thread(f"thread{n}")).values["count"] == rounds


def test_two_processes_write_at_once_and_lose_nothing(backend):
    backend.open()  # the tables exist before the processes start, as after a first server
    context = multiprocessing.get_context("spawn")  # fresh interpreters, as two servers
    start, errors = context.Barrier(2), context.Queue()
    rounds = 8
    processes = [context.Process(target=write_everything,
                                 args=(str(backend.data_dir), backend.url, worker, rounds,
                                       start, errors))
                 for worker in (1, 2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(240)
    failures = [errors.get() for _ in range(errors.qsize())] if not errors.empty() else []
    assert failures == [] and [p.exitcode for p in processes] == [0, 0], failures

    database = backend.open()
    index = database.chat_index
    assert {r.id for r in index.list()} == {
        "shared", *(f"p{w}-{i}" for w in (1, 2) for i in range(rounds))}
    shared = index.get("shared")
    assert (shared.title, shared.title_from) == ("Kept by the rename", "user")
    for worker in (1, 2):
        assert all(database.share_links.get(f"p{worker}-link{i}") is not None
                   for i in range(rounds))
        state = counter_graph(database.checkpointer).get_state(thread(f"p{worker}-thread"))
        assert state.values["count"] == rounds


# Reaching the database


def test_an_unreachable_database_is_named_without_its_password():
    with socket_nobody_listens_on() as port:
        url = f"postgresql://someone:s3cret-pw@127.0.0.1:{port}/chats"
        with pytest.raises(DatabaseUnavailable) as caught:
            open_pool(url, timeout_s=1)
    message = str(caught.value)
    assert "s3cret-pw" not in message
    assert "someone@127.0.0.1" in message and "TABLELENS_DATABASE_URL" in message


def test_only_a_postgresql_url_is_accepted():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="TABLELENS_DATABASE_URL") as caught:
        Settings.from_env({"TABLELENS_DATABASE_URL": "mysql://root:hunter2@db/chats"})
    assert "hunter2" not in str(caught.value)  # a refused value is not echoed
    settings = Settings.from_env({"TABLELENS_DATABASE_URL": "postgresql://u:p@db:5432/chats"})
    assert "u:p@" not in repr(settings)


class socket_nobody_listens_on:  # noqa: N801 - used as a with statement
    """A loopback port bound but not listening, so a connection to it is refused."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


# The app on each backend


def serve_on(backend: Backend, monkeypatch) -> None:
    """Make the app (Streamlit AppTest) keep its records on this backend."""
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(backend.data_dir))
    if backend.url:
        monkeypatch.setenv("TABLELENS_DATABASE_URL", backend.url)
    else:
        monkeypatch.delenv("TABLELENS_DATABASE_URL", raising=False)
    made = Settings.app_database

    def kept(settings, *args, **kwargs):  # closed with the test's own (the fixture's)
        database = made(settings, *args, **kwargs)
        backend.opened.append(database)
        return database

    monkeypatch.setattr(Settings, "app_database", kept)


def test_the_app_asks_shares_and_forks_on_this_backend(backend, monkeypatch, samples):
    """The whole path through the app (Streamlit AppTest): a question, a follow-up after a
    server restart (the checkpoint), a share link opened by another browser, and its fork."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP, answers, ask, upload_financial
    from tests.test_share_app import make_link, viewer

    serve_on(backend, monkeypatch)
    st.cache_resource.clear()
    owner = AppTest.from_file(APP, default_timeout=60)
    owner.run()
    upload_financial(owner, samples)
    ask(owner)
    chat = owner.query_params["session"]
    st.cache_resource.clear()  # a restarted server: a new pool, a new checkpointer
    ask(owner, "and for Q3?")
    assert answers(owner) == ["375", "405"]  # the follow-up read the first turn's state
    token = make_link(owner)

    seen = viewer(token)
    assert answers(seen) == ["375", "405"] and not seen.chat_input
    next(b for b in seen.button if b.label == "Make my own copy").click().run()
    fork = seen.query_params["session"]
    assert fork != chat and answers(seen) == ["375", "405"]

    index = backend.open().chat_index
    assert {chat, fork} <= {r.id for r in index.list()}
    assert index.get(fork).title.endswith("(copy)")
    assert (backend.data_dir / "app.sqlite").exists() == (backend.name == "sqlite")
    st.cache_resource.clear()


def test_with_login_each_user_lists_and_opens_only_their_own_chats_on_this_backend(
        backend, monkeypatch):
    """Two logged-in users through the app: neither lists or opens the other's chat, a share
    link opens for the other, and its fork is theirs."""
    import streamlit as st

    from tests.test_app import ask, no_failure
    from tests.test_login_app import ANN, BOB, ISSUER, browser, is_not_yours_page, listed
    from tests.test_share_app import make_link

    serve_on(backend, monkeypatch)
    st.cache_resource.clear()
    ann = browser(ANN)
    ask(ann, "Total rent for Q2?")
    chat = ann.query_params["session"]
    bob = browser(BOB)
    assert listed(bob) == [] and is_not_yours_page(browser(BOB, session=chat))
    seen = browser(BOB, share=make_link(ann))
    next(b for b in seen.button if b.label == "Make my own copy").click().run()
    no_failure(seen)
    fork = seen.query_params["session"]
    index = backend.open().chat_index
    assert index.get(chat).owner == Owner(ISSUER, "ann-0001")
    assert index.get(fork).owner == Owner(ISSUER, "bob-0002")
    assert listed(browser(ANN)) == [chat] and listed(browser(BOB)) == [fork]
    assert is_not_yours_page(browser(ANN, session=fork))
    st.cache_resource.clear()


def test_an_unused_workspace_removed_at_start_takes_its_row_on_this_backend(backend,
                                                                            monkeypatch):
    """A new chat's row is made with its workspace; when the workspace is removed as unused
    (nothing uploaded or asked, a day old), its row goes too, in PostgreSQL as in SQLite."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from storage.workspace import Workspace, new_workspace_id
    from tablelens.stale_workspaces import STALE_AFTER_S
    from tests.test_app import APP, no_failure

    serve_on(backend, monkeypatch)
    chat = new_workspace_id()
    Workspace.in_data_dir(backend.data_dir, chat).close()
    backend.open().chat_index.touch(chat)
    folder = backend.data_dir / "workspaces" / chat
    old = folder.stat().st_mtime - 2 * STALE_AFTER_S
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (old, old))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    no_failure(at)
    assert not folder.exists()
    assert backend.open().chat_index.get(chat) is None
    st.cache_resource.clear()
