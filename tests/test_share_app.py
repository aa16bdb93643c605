"""Share links in the app (Streamlit AppTest): a link opens a read-only snapshot; revoked,
expired and unknown links get one same page; a fork is an independent chat where follow-ups
work; the shared view shows no server path, data directory or API key."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from storage.share_links import SqliteShareLinks
from tablelens import share_view
from tablelens.literal_md import SEAM
from tests.documents_samples import docx_bytes
from tests.test_app import (
    APP,
    answers,
    ask,
    citation_buttons,
    no_failure,
    open_citation,
    upload_financial,
)
from tests.test_app_llm import button as llm_button
from tests.test_app_llm import closed_port, fill

API_KEY = "sk-test-share-0123456789abcdef"


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TABLELENS_LLM_API_KEY", API_KEY)  # no model named: offline engine
    import streamlit as st

    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def data_dir() -> Path:
    return Path(os.environ["TABLELENS_DATA_DIR"])


def make_link(at, *, allow_files: bool = False, expiry: str = "Never") -> str:
    """Make a link from the sidebar's share panel; return its token."""
    at.checkbox(key="share_allow_files").set_value(allow_files)
    at.selectbox(key="share_expiry").set_value(expiry)
    next(b for b in at.button if b.label == "Make a read-only link").click().run()
    no_failure(at)
    url = next(c.value for c in at.code if "?share=" in c.value)
    return url.split("?share=", 1)[1]


def viewer(token: str) -> AppTest:
    """Another browser opening the share link."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["share"] = token
    at.run()
    no_failure(at)
    return at


def shared_chat(at, samples) -> str:
    upload_financial(at, samples)
    ask(at)
    return make_link(at)


def texts(at) -> str:
    """Everything the page holds, element by element (the whole tree, as protos)."""
    return "\n".join(str(node.proto) for node in _walk(at._tree) if hasattr(node, "proto"))


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def test_a_share_link_shows_the_chat_read_only(app, samples):
    token = shared_chat(app, samples)
    # One upload and one question: the owner's list of links counts the question.
    assert any(": 1 question, " in c.value for c in app.sidebar.caption)
    seen = viewer(token)
    assert answers(seen) == ["375"]
    assert any("Decompose" in h.proto.body for h in seen.get("html"))  # the step trace
    assert citation_buttons(seen) == citation_buttons(app)
    assert not seen.chat_input and not seen.file_uploader
    assert not seen.sidebar.button and not seen.sidebar.text_input
    labels = {b.label for b in seen.button}
    assert not labels & {"Delete chat", "Remove", "New chat", "Rename"}
    assert "Make my own copy" in labels
    open_citation(seen, "P&L!C5")
    no_failure(seen)
    assert any("Yellow: the cells this answer cites" in c.value for c in seen.caption)
    assert any(">230</td>" in h.proto.body for h in seen.get("html"))


def test_a_link_shows_the_chat_as_it_was_when_made(app, samples):
    token = shared_chat(app, samples)
    ask(app, "and for Q3?")
    assert answers(app)[-1] == "405"
    assert answers(viewer(token)) == ["375"]


def test_revoked_expired_and_unknown_links_get_the_same_page(app, samples):
    token = shared_chat(app, samples)
    links = SqliteShareLinks.in_data_dir(data_dir())
    chat_id = app.query_params["session"]
    link, expired = links.add("old", chat_id, title="x",
                              expires_in=dt.timedelta(days=1),
                              now=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    pages = []
    next(b for b in app.button if b.label == "Revoke").click().run()
    no_failure(app)
    for bad in (token, expired, "A" * 32, "", "<script>"):
        at = viewer(bad)
        assert [i.value for i in at.info] == [share_view.UNAVAILABLE_MESSAGE]
        pages.append(texts(at))
    assert len(set(pages)) == 1
    assert not viewer(token).button


def test_a_fork_is_a_chat_of_its_own_where_follow_ups_work(app, samples):
    token = shared_chat(app, samples)
    original = app.query_params["session"]
    seen = viewer(token)
    next(b for b in seen.button if b.label == "Make my own copy").click().run()
    no_failure(seen)
    fork = seen.query_params["session"]
    assert "share" not in seen.query_params and fork != original
    assert answers(seen) == ["375"] and seen.chat_input
    ask(seen, "and for Q3?")  # reads the copied state of the first question
    assert answers(seen) == ["375", "405"]
    again = AppTest.from_file(APP, default_timeout=60)
    again.query_params["session"] = original
    again.run()
    assert answers(again) == ["375"]  # the original is untouched
    assert answers(viewer(token)) == ["375"]


def test_a_shared_view_shows_no_server_path_data_dir_or_api_key(app, samples):
    token = shared_chat(app, samples)
    seen = viewer(token)
    page = texts(seen)
    assert "375" in page and "SELECT" in page  # the walk reaches the answer and the steps
    for secret in (str(data_dir()), str(data_dir().resolve()), "workspace.sqlite",
                   app.query_params["session"], API_KEY, str(Path.home())):
        assert secret not in page, secret


def test_a_shared_view_names_no_model_server_the_owner_used(app, samples):
    """A question asked of a model that could not be reached said so with its address; the
    share page showed the address to every viewer. It is hidden, whichever server it was
    (this one is no longer the owner's setting when the link is made)."""
    upload_financial(app, samples)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    fill(app, engine="OpenAI-compatible server", model="qwen", base_url=url, timeout_s=2.0,
         max_retries=0)
    llm_button(app, "Apply").click()
    app.run()
    ask(app)
    assert any(url in w.value for w in app.warning)  # the owner is told which server
    llm_button(app, "Reset to server defaults").click()
    app.run()
    seen = viewer(make_link(app))
    assert answers(seen) == ["375"]
    page = texts(seen)
    assert url not in page and "127.0.0.1:" not in page
    assert any("The model at … could not be reached" in w.value for w in seen.warning)


def file_buttons(at, samples) -> list:
    """The shared page's button of financial.xlsx (keyed by the file's SHA-256)."""
    sha = hashlib.sha256((samples / "financial.xlsx").read_bytes()).hexdigest()
    return [b for b in at.button if b.key == f"share_file_{sha}"]


def test_original_files_are_offered_only_when_allowed(app, samples):
    upload_financial(app, samples)
    ask(app)
    closed = make_link(app)
    opened = make_link(app, allow_files=True)
    assert not file_buttons(viewer(closed), samples)
    seen = viewer(opened)
    [get] = file_buttons(seen, samples)
    assert get.label == "financial.xlsx"
    get.click().run()  # the page checks the link again, then offers the file's bytes
    no_failure(seen)
    assert [b for b in seen.get("download_button") if "Save financial.xlsx" in str(b.proto)]


def test_a_file_asked_for_after_its_link_was_revoked_gets_the_unavailable_page(app, samples):
    """A shared page left open after a revoke: its file button reruns the page, which says
    the link no longer opens, rather than Streamlit's "Failed to generate file"."""
    upload_financial(app, samples)
    ask(app)
    token = make_link(app, allow_files=True)
    seen = viewer(token)
    next(b for b in app.button if b.label == "Revoke").click().run()
    no_failure(app)
    file_buttons(seen, samples)[0].click().run()
    assert [i.value for i in seen.info] == [share_view.UNAVAILABLE_MESSAGE]
    assert not [b for b in seen.get("download_button") if "financial.xlsx" in str(b.proto)]


def test_a_viewer_is_not_told_to_upload_a_file(app):
    """A question asked before any upload tells the owner to upload one; a viewer, who
    cannot, is told why it has no answer."""
    ask(app, "Total rent for Q2?")
    seen = viewer(make_link(app))
    page = texts(seen)
    assert "Upload one in the sidebar" not in page
    assert [i.value for i in seen.info] == [share_view.NO_FILES_VIEWER_MESSAGE]


def test_the_share_panel_says_anyone_with_the_link_can_read(app, samples):
    upload_financial(app, samples)
    ask(app)
    assert any("Anyone who has a share link can read" in c.value for c in app.sidebar.caption)


def test_a_server_reachable_from_other_machines_shows_a_banner(tmp_path, monkeypatch):
    from streamlit import config

    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
    finally:
        config.set_option("server.address", before)
    assert any("has no login" in w.value for w in at.warning)


def test_a_title_written_as_markdown_is_shown_as_written_not_as_a_link(app, samples):
    """The share page's title is the owner's first question: a Markdown link in it must not
    become a link on a page viewers trust."""
    upload_financial(app, samples)
    question = ("[Log in again](https://evil.example/x) What was the total operating expense "
                "for Q2 2024?")
    ask(app, question, failing=True)
    seen = viewer(make_link(app))
    [title] = seen.title
    # Escaped, and the address broken by an empty element (literal_md.SEAM): GFM links a bare
    # address whatever backslashes surround it ("https://evil.example/x\\" was a live link).
    assert title.value.startswith(f"\\[Log in again\\]\\(https\\:{SEAM}//evil.example/x\\)")
    # The question is plain text (st.text), which no Markdown is read from.
    assert [t.value for t in seen.text if "Log in again" in t.value] == [question]


def test_the_start_warning_reads_the_address_streamlit_will_bind():
    from tablelens.cli import _last_address

    assert _last_address(["--server.headless", "true"]) is None
    assert _last_address(["--server.address", "0.0.0.0"]) == "0.0.0.0"
    assert _last_address(["--server.address=0.0.0.0", "--server.address", "127.0.0.1"]) == \
        "127.0.0.1"


def test_a_second_click_on_an_unchanged_chat_makes_no_second_link(app, samples):
    """A double click on "Make a read-only link" made two snapshots the list could not tell
    apart; the same chat with the same options keeps the link just made."""
    token = shared_chat(app, samples)
    assert make_link(app) == token
    links = SqliteShareLinks.in_data_dir(data_dir())
    assert len(links.for_chat(app.query_params["session"])) == 1
    assert make_link(app, allow_files=True) != token  # other options: another link


DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def test_a_viewer_reads_the_citations_as_the_owner_does(app):
    """A shared page labelled a document's cited cell by its table alone ("table1!B3 = 30"),
    which says nothing of where it is; the owner read it with its file's name."""
    app.file_uploader[0].set_value(("staff.docx", docx_bytes(), DOCX)).run()
    no_failure(app)
    ask(app, "What was the Oslo headcount in 2019?")
    assert citation_buttons(app) == ["staff.docx, table1!B3 = 30"]
    assert citation_buttons(viewer(make_link(app))) == citation_buttons(app)
