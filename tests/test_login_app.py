"""Who sees which chat (issue 19), in the app (Streamlit AppTest): with login, a chat belongs to
the user (issuer and subject) who made it, and nobody else lists or opens it except through a
share link, whose fork belongs to whoever makes it; without login, each browser lists the
chats it opened, while a chat's URL still opens it anywhere.

AppTest seeds `st.user` and the secrets' `[auth]` section per test browser; it cannot seed
cookies, so a browser's id is put where the app keeps it once learnt from its cookie
(`tablelens/browser_id.py`). The storage rules under both are tested on SQLite and PostgreSQL
in tests/test_app_database.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from storage.chat_index import Owner, SqliteChatIndex
from storage.workspace import Workspace, new_workspace_id
from tablelens import browser_id, chat_store, login
from tests.test_app import APP, answers, ask, no_failure, upload_financial
from tests.test_share_app import make_link, texts

AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "a-test-cookie-secret-of-enough-length",
        "client_id": "tablelens", "client_secret": "not-a-real-secret",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
ISSUER = "https://id.example.com"
ANN = {"is_logged_in": True, "iss": ISSUER, "sub": "ann-0001", "name": "Ann Example",
       "email": "ann@example.com"}
BOB = {"is_logged_in": True, "iss": ISSUER, "sub": "bob-0002", "name": "Bob Example",
       "email": "bob@example.com"}


@pytest.fixture(autouse=True)
def data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    import streamlit as st

    st.cache_resource.clear()
    return tmp_path / "data"


def browser(user: dict | None = None, **query: str) -> AppTest:
    """A new browser session: logged in as `user` (login on), or without login (None)."""
    at = AppTest.from_file(APP, default_timeout=60)
    if user is not None:
        at.secrets["auth"] = AUTH
        at.user = dict(user)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    no_failure(at)
    return at


def cookie_browser(browser_cookie: str, **query: str) -> AppTest:
    """A browser without login whose cookie holds `browser_cookie`."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[browser_id.KEY] = browser_cookie
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    no_failure(at)
    return at


def listed(at) -> list[str]:
    """The ids of the chats the sidebar lists."""
    return [b.key.removeprefix("open_chat_") for b in at.sidebar.button
            if (b.key or "").startswith("open_chat_")]


def is_not_yours_page(at) -> bool:
    """The one page of a chat URL that is not the user's: its message, and nothing else."""
    return ([i.value for i in at.info] == [login.NOT_YOURS_MESSAGE] and not at.chat_input
            and not at.sidebar.button and not at.file_uploader
            and [b.label for b in at.button] == ["Go to my chats"])


def owner_of(data: Path, chat_id: str) -> Owner | None:
    return SqliteChatIndex.in_data_dir(data).get(chat_id).owner


def test_nothing_but_the_login_page_until_someone_logs_in():
    at = browser({"is_logged_in": False}, session="A" * 22)
    assert [t.value for t in at.title] == ["Tablelens"]
    assert [b.label for b in at.button] == ["Log in"]
    assert any(m.value == login.LOGIN_NOTE for m in at.markdown)
    assert not at.chat_input and not at.sidebar.button and not at.file_uploader
    shared = browser({"is_logged_in": False}, share="A" * 32)  # a share link too
    assert [b.label for b in shared.button] == ["Log in"]


def test_each_named_provider_gets_its_login_button():
    at = AppTest.from_file(APP, default_timeout=60)
    provider = {k: AUTH[k] for k in ("client_id", "client_secret", "server_metadata_url")}
    at.secrets["auth"] = {"redirect_uri": AUTH["redirect_uri"],
                          "cookie_secret": AUTH["cookie_secret"],
                          "google": provider, "microsoft": provider}
    at.user = {"is_logged_in": False}
    at.run()
    no_failure(at)
    assert [b.label for b in at.button] == ["Log in with Google", "Log in with Microsoft"]


def test_the_sidebar_names_who_is_logged_in_and_logs_out():
    at = browser(ANN)
    assert any("Logged in as Ann Example" in c.value and "ann@example.com" in c.value
               for c in at.sidebar.caption)
    assert "Log out" in [b.label for b in at.sidebar.button]
    assert not any("ann-0001" in c.value for c in at.sidebar.caption)  # never the subject


def test_a_login_without_issuer_or_subject_shows_no_chat():
    at = browser({"is_logged_in": True, "email": "ann@example.com"})
    assert [e.value for e in at.error] == [login.MISSING_CLAIMS_MESSAGE]
    assert not at.chat_input and not at.sidebar.button


def test_two_users_see_only_their_own_chats_and_a_share_link_is_the_way_in(data, samples):
    ann = browser(ANN)
    upload_financial(ann, samples)
    ask(ann)
    chat = ann.query_params["session"]
    assert listed(ann) == [chat] and owner_of(data, chat) == Owner(ISSUER, "ann-0001")

    bob = browser(BOB)
    assert listed(bob) == []
    ask(bob, "Total rent for Q2?")  # a chat of Bob's own
    bobs = bob.query_params["session"]
    assert listed(bob) == [bobs] and owner_of(data, bobs) == Owner(ISSUER, "bob-0002")
    assert listed(browser(ANN)) == [chat]

    # Ann's URL opens for Ann, and for Bob is the same page as a chat that does not exist.
    assert answers(browser(ANN, session=chat)) == ["375"]
    theirs, missing = browser(BOB, session=chat), browser(BOB, session=new_workspace_id())
    assert is_not_yours_page(theirs) and is_not_yours_page(missing)
    assert texts(theirs) == texts(missing)
    # The same subject at another identity provider is another account.
    elsewhere = browser({**ANN, "iss": "https://other.example.org"}, session=chat)
    assert is_not_yours_page(elsewhere)

    token = make_link(ann)
    seen = browser(BOB, share=token)
    assert answers(seen) == ["375"]
    page = texts(seen)
    for identity in ("Ann Example", "ann@example.com", "ann-0001"):
        assert identity not in page, identity
    next(b for b in seen.button if b.label == "Make my own copy").click().run()
    no_failure(seen)
    fork = seen.query_params["session"]
    assert owner_of(data, fork) == Owner(ISSUER, "bob-0002")
    assert set(listed(seen)) == {bobs, fork}
    ask(seen, "and for Q3?")
    assert answers(seen) == ["375", "405"]
    assert listed(browser(ANN)) == [chat]
    assert is_not_yours_page(browser(ANN, session=fork))


def test_a_user_cannot_rename_or_delete_another_users_chat(data):
    ann = browser(ANN)
    ask(ann, "Total rent for Q2?")
    chat = ann.query_params["session"]
    bob = browser(BOB)
    # Bob's page has no widget for Ann's chat; a forged deletion is refused all the same.
    bob.session_state["delete_chat_now"] = chat
    bob.run()
    no_failure(bob)
    assert (data / "workspaces" / chat).is_dir()
    assert SqliteChatIndex.in_data_dir(data).get(chat) is not None


def test_chats_from_before_owners_open_only_while_login_is_off(data):
    """A chat with no owner (made without login, or before owners were kept) could be
    anyone's, so with login on nobody opens it; with login off it opens as before."""
    old = new_workspace_id()
    workspace = Workspace.in_data_dir(data, old)
    chat_store.add_question(workspace, "r1", "Total rent for Q2?")
    workspace.close()
    assert listed(browser(ANN)) == []
    assert is_not_yours_page(browser(ANN, session=old))
    assert browser(None, session=old).query_params["session"] == old


def test_without_login_each_browser_lists_the_chats_it_opened():
    first, second = "F" * 22, "S" * 22
    one = cookie_browser(first)
    ask(one, "Total rent for Q2?")
    mine = one.query_params["session"]
    two = cookie_browser(second)
    ask(two, "Revenue by region?")
    theirs = two.query_params["session"]
    assert listed(cookie_browser(first)) == [mine]
    assert listed(cookie_browser(second)) == [theirs]
    # A URL still opens the chat in any browser, which lists it from then on.
    opened = cookie_browser(second, session=mine)
    assert opened.chat_input and opened.query_params["session"] == mine
    assert set(listed(cookie_browser(second))) == {mine, theirs}
    assert listed(cookie_browser(first)) == [mine]


def test_a_secrets_file_that_cannot_be_read_shows_no_chat(tmp_path, monkeypatch):
    """A typo in the secrets must not turn login off and open every chat."""
    import streamlit as st
    from streamlit import config
    from streamlit.runtime.secrets import Secrets

    broken = tmp_path / "secrets.toml"
    broken.write_text('[auth\nclient_id = "tablelens"\n', encoding="utf-8")
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(broken)])
    monkeypatch.setattr(st, "secrets", Secrets())  # read afresh from that file
    try:
        at = browser()
    finally:
        config.set_option("secrets.files", before)
    assert [e.value for e in at.error] == [login.BROKEN_MESSAGE]
    assert not at.chat_input and not at.sidebar.button
