"""Tablelens web app: upload reports, ask questions, watch every step, check every cited cell.

A thin client: it collects input, calls `ingest`, `storage` and `agent`, and lays out what the
pure helpers in `tablelens/` prepare (chat_store, chat_view, charts, exports, runs,
workspace_view, render). The chat id is kept in the URL (`?session=...`); the workspace database
is the source of truth, transcript included, so a refresh keeps everything. `st.session_state`
only remembers the uploader's key and one-off messages.

Questions run on a worker thread (`tablelens/runs.py`); this script thread renders their
events as they arrive, and picks a run up again when a click reruns the script mid-run.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import streamlit as st

from agent.graph import build_graph
from agent.prepare import add_prepared
from agent.run import new_run_id
from ingest.errors import IngestError, IngestStopped
from ingest.grid import SHEET_FORMATS, table_place
from ingest.read import SUPPORTED
from storage.chat_index import (
    MAX_TITLE_CHARS,
    ChatIndex,
    ChatRecord,
    EmptyTitle,
    Owner,
    UnknownChat,
    title_of_question,
)
from storage.chunks import count_chunks
from storage.postgres import DatabaseUnavailable
from storage.records import SourceInfo, TableInfo
from storage.share_links import ShareLink, ShareLinks
from storage.workspace import Workspace, new_workspace_id
from tablelens import (
    access,
    browser_id,
    chat_store,
    chats,
    cited_view,
    exposure,
    login,
    reports,
    runs,
    script_runs,
    share_view,
    sharing,
    uploads,
)
from tablelens import llm_settings_view as llm_view
from tablelens.app_database import AppDatabase
from tablelens.charts import ChartSpec, chart_for, chart_for_answer, vega_lite_spec
from tablelens.chat_export import chat_zip
from tablelens.chat_view import (
    CONFIDENCE_COLORS,
    INTERRUPTED_MESSAGE,
    NO_FILES_MESSAGE,
    SUPERSEDED_NOTE,
    Outcome,
    StepView,
    answer_message,
    answer_text,
    close_steps,
    confidence_text,
    copy_text,
    details_line,
    evidence_labels,
    grounded_line,
    group_steps,
    md_escape,
    model_failure_note,
    outcome_of,
    plain_error,
    retrieved_rows,
    sql_names_line,
    step_icon,
    unadded_message,
    usage_line,
)
from tablelens.citations import cited_table, passage_html, set_label
from tablelens.exports import file_stem, table_frame
from tablelens.follow_chat import follow_newest_message
from tablelens.literal_md import md_literal
from tablelens.llm_calls_view import attempts_html, calls_html
from tablelens.render import SHOWN_COLS, SHOWN_ROWS, drawn_window, grid_html, ocr_caption
from tablelens.settings import Settings
from tablelens.stale_workspaces import remove_stale
from tablelens.table_downloads import download_buttons
from tablelens.table_view import table_view
from tablelens.turn_html import older_turns_html, steps_html
from tablelens.workspace_view import (
    column_numbers,
    column_options,
    column_path_names,
    describe_decisions,
    header_refs,
    row_options,
    row_path_names,
    tree_html,
)

log = logging.getLogger("tablelens.app")

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # whole-string match: `$` would let "\n" pass
# The widgets take any file: a type filter refuses files in the browser, where the server never
# sees them and the user gets only a tooltip. A file without a reader gets its message in the chat.
READ_TYPES = ", ".join(SUPPORTED)
UPLOAD_HELP = (f"Read: {READ_TYPES} (Excel workbooks old and new, OpenDocument spreadsheets, "
               "CSV/TSV, HTML pages, Markdown, text, "
               "Word and PDF documents, and screenshots or scans of tables, read with OCR). Any "
               "other file gets a message in the chat saying what to do with it.")
# Chat-to-workspace width ratios; full width puts the two on tabs of their own. (A comment,
# not a docstring: Streamlit's magic would print a bare string of the script on the page.)
PANEL_LAYOUTS = {"Beside the chat": (2, 1), "Wide": (1, 1), "Full width": None}
SIDE_BY_SIDE = "chat_and_workspace"
# Below these widths side by side (a laptop with the sidebar open), the workspace goes under
# the chat: Streamlit itself stacks columns only on screens under 640 px.
MIN_CHAT_PX, MIN_PANEL_PX = 480, 320


def side_by_side_css(ratio: tuple[int, int]) -> str:
    """The chat and workspace columns grow in `ratio` from their least widths, and wrap (the
    panel under the chat, each then full width) when the page cannot give both."""
    block = f'.st-key-{SIDE_BY_SIDE} > div > [data-testid="stHorizontalBlock"]'
    column = f'{block} > [data-testid="stColumn"]'
    return (f"<style>{block} {{ flex-wrap: wrap; }}"
            f"{column}:first-child {{ flex: {ratio[0]} 1 {MIN_CHAT_PX}px !important; "
            f"width: auto !important; min-width: min({MIN_CHAT_PX}px, 100%) !important; }}"
            f"{column}:last-child {{ flex: {ratio[1]} 1 {MIN_PANEL_PX}px !important; "
            f"width: auto !important; min-width: min({MIN_PANEL_PX}px, 100%) !important; }}"
            "</style>")
DEFAULT_PANEL = "Beside the chat"
SHOWN_PASSAGES = 50  # a document's passages drawn in its Text tab
# How often a followed run updates its clock (which also lets a click interrupt the script).
HEARTBEAT_S = 0.25
# How long the chat box's fragment follows a new question before the page takes it over. The
# fragment shows no Stop: a click on a fragment's widget waits until the fragment's run ends,
# and a rerun of the page drops it; the page's Stop acts at once.
HAND_OFF_S = 0.5
# A rerun of the page raised right after the fragment drew drops what was not yet sent to the
# browser (the answer, measured: shown 0.4 s later, by the page); this long lets it go first.
RERUN_AFTER_S = 0.1
# Turns drawn with their widgets; older ones are one block of HTML (tablelens/turn_html.py), so
# the elements the browser redraws on each question stop growing with the chat. Of these, the
# newest draws a widget per step; the others draw their timeline as one HTML element, and keep
# widgets only for their tables and cited cells. Measured on a quiet machine (Enter to the first
# step, median of turns 26-30 against turns 1-5): 10 such turns 225 vs 158 ms (1.42x), 5 turns
# 145 vs 168 ms, 3 turns 131 vs 157 ms; every turn still shows all it said.
RECENT_TURNS = 5
WIDGET_TURNS_KEY = "turns_with_widgets"  # the turns the last rerun drew with their widgets
REMOVING_KEY = "removing"  # the file whose Remove was clicked, until it is confirmed or kept
TURN_MESSAGES = 2  # a turn's slot holds its question and its reply (an upload: one message)
INTRO = ("Ask a question about your reports: *What was the total operating expense for Q2 "
         "2024?* Each step appears as it runs, with its SQL and intermediate table, and every "
         "number in the answer links to the cells it came from.")
BAD_LINK_KEY = "bad_chat_link"  # the URL named no chat here (or it was deleted): why
PENDING_UPLOAD_KEY = "pending_upload"  # a message's text and files, handed to the page to add
BAD_LINK_MESSAGE = ("That chat link was not recognised (a chat id is 22 letters, digits, - or "
                    "_), so this is a new, empty chat. Check the link, or start here.")
UNKNOWN_LINK_MESSAGE = ("No chat has that link: it may have been deleted, or made on another "
                        "server. This is a new, empty chat; earlier chats are listed in the "
                        "sidebar.")
DELETED_CHAT_MESSAGE = ("This chat was deleted in another window, so {what} and nothing "
                        "was saved. This is a new, empty chat: upload your reports here, then "
                        "ask again.")
DATABASE_DOWN_MESSAGE = ("The app cannot reach its database just now, so chats cannot be "
                         "opened. Reload the page in a minute; if it stays like this, the "
                         "server log says why.")

st.set_page_config(page_title="Tablelens", layout="wide")


@st.cache_resource
def settings() -> Settings:
    return Settings.from_env()


@st.cache_resource
def app_database() -> AppDatabase:
    """Where the chat index, share links and checkpoints live, one per process: app.sqlite
    in the data directory, or PostgreSQL with TABLELENS_DATABASE_URL
    (`tablelens/app_database.py`)."""
    database = settings().app_database()
    log.info("chats, share links and checkpoints are in %s", database.where)
    return database


def checkpointer() -> Any:
    """The LangGraph checkpointer (`tablelens/checkpoints.py`); thread id = chat id."""
    return app_database().checkpointer


@st.cache_resource
def chat_graph() -> Any:
    """The graph every chat's questions run through, checkpointed (`checkpointer`): a
    follow-up reads the chat's previous turn."""
    return build_graph(checkpointer())


def chat_index() -> ChatIndex:
    """The chat index (`storage/chat_index.py`)."""
    return app_database().chat_index


def share_links() -> ShareLinks:
    """The share links (`storage/share_links.py`)."""
    return app_database().share_links


@st.cache_resource
def tidied(data_dir: str) -> list[str]:
    """Once per process: remove the workspaces nobody used (tablelens/stale_workspaces.py)
    and their index rows, then index the folders the chat index does not list yet
    (tablelens/chats.py), and remove the snapshots of share links revoked or expired
    (tablelens/sharing.py)."""
    removed = remove_stale(data_dir)
    try:
        # Their rows too: a new chat's row is made with its workspace (`new_chat_workspace`),
        # and in PostgreSQL nothing else drops the row of a folder that is gone.
        for chat_id in removed:
            chat_index().delete(chat_id)
    except Exception:  # the list keeps an empty chat, which opens as "No chat has that link"
        log.exception("could not remove the index rows of unused workspaces")
    try:
        sharing.purge_unusable(data_dir, links=share_links(), checkpointer=checkpointer())
    except Exception:  # the links stay closed; only disk space is not given back
        log.exception("could not remove the snapshots of closed share links")
    try:
        chats.index_unlisted(data_dir, chat_index(),
                             drop_missing=app_database().backend == "sqlite")
    except Exception:  # the chats stay usable by their links; the list is what suffers
        log.exception("could not index the existing chats")
    return removed


def note_use(workspace: Workspace, *, question: str | None = None,
             file_name: str | None = None) -> None:
    """Record in the chat index that this chat was just used (a question, an upload, a
    removal): its place in the list, its file count, and its title from its first question.
    A failure is logged only: the question or the upload goes on."""
    try:
        chat_index().touch(workspace.id, question=question, file_name=file_name,
                           files=len(workspace.sources()), owner=current_user())
    except Exception:
        log.exception("could not update the chat index for this chat")


# --- who is asking ----------------------------------------------------------------------------

OPENED_KEY = "chats_opened"  # chats this browser session opened, not yet recorded as its own


def current_user() -> Owner | None:
    """The logged-in user when login is on (`tablelens/login.py`); None when it is off."""
    return login.current_user() if login.setting() == "on" else None


def list_scope() -> dict[str, Any] | None:
    """Whose chats the list shows (`ChatIndex.list`'s filter): the user's with login, else
    this browser's; None while this browser's id is not known yet (its first run)."""
    user = current_user()
    if user is not None:
        return {"owner": user}
    browser = browser_id.known()
    return {"browser": browser} if browser is not None else None


def may_open(chat_id: str) -> bool:
    """Whether this user may open, rename, delete or share the chat (`tablelens/access.py`)."""
    user = current_user()
    return user is None or access.may_open(chat_index().get(chat_id), user)


def note_opened(chat_id: str) -> None:
    """Without login, remember that this browser opened the chat, for its list. Kept in the
    browser session until its id is known (`record_opened`): a first visit's first run does
    not know it yet."""
    if current_user() is None:
        st.session_state.setdefault(OPENED_KEY, set()).add(chat_id)
        record_opened()


def record_opened() -> None:
    """Record the chats this browser session opened as this browser's, once its id is known."""
    browser = browser_id.known()
    pending = st.session_state.get(OPENED_KEY) or set()
    if browser is None or not pending:
        return
    try:
        for chat_id in sorted(pending):
            chat_index().remember(browser, chat_id)
    except Exception:  # the chat still opens; only this browser's list misses it
        log.exception("could not record the chats this browser opened")
        return
    st.session_state[OPENED_KEY] = set()


def one_run_at_a_time(draw: Callable[..., Any]) -> Callable[..., Any]:
    """Run `draw` (the page, a fragment or a dialog) holding the session's script-run lock.

    A click starts the next run on a new thread before the one it replaces has ended
    (Streamlit's fast reruns): an upload that run showed is still rolling back on the
    session's one workspace connection, and its chat messages are not written yet
    (tablelens/script_runs.py). The next run waits for that run's end.
    """
    @functools.wraps(draw)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with script_runs.one_at_a_time(st.session_state):
            return draw(*args, **kwargs)
    return locked


def current_workspace() -> Workspace | None:
    """Open this chat's workspace; None when the URL names no chat (or a malformed id), which
    is a new, empty chat: its id and workspace are made at its first upload or question
    (`new_chat_workspace`), so a visit that asks nothing leaves nothing on disk.

    The open workspace is cached in the browser session: opening one writes to its database,
    which a run's agent (writing step tables on another connection) could trip over.
    """
    session = st.query_params.get("session", "")
    if not _SESSION_ID.fullmatch(session):
        if "session" in st.query_params:
            del st.query_params["session"]
            st.session_state[BAD_LINK_KEY] = BAD_LINK_MESSAGE
        return None
    if not (Path(settings().data_dir) / "workspaces" / session / "workspace.sqlite").is_file():
        # A well-formed id of no chat here (deleted, or another server's): say so, and make
        # nothing on disk for it; the chat's own id comes with its first upload or question.
        del st.query_params["session"]
        st.session_state[BAD_LINK_KEY] = UNKNOWN_LINK_MESSAGE
        return None
    return _open_workspace(session)


def new_chat_workspace() -> Workspace:
    """Make the new chat's id (into the URL), its index row (owned by this user, so its next
    run opens it) and its workspace."""
    session = new_workspace_id()
    chat_index().touch(session, owner=current_user())
    st.query_params["session"] = session
    return _open_workspace(session)


def _open_workspace(session: str) -> Workspace:
    root = Path(settings().data_dir) / "workspaces" / session
    cached = st.session_state.get("_workspace")
    # A chat deleted from another tab leaves this one's workspace without its folder: open the
    # folder afresh rather than write into a database file that is gone.
    if isinstance(cached, Workspace) and cached.root == root and root.is_dir():
        return cached
    if isinstance(cached, Workspace):
        cached.close()
    workspace = Workspace.in_data_dir(settings().data_dir, session)
    st.session_state["_workspace"] = workspace
    note_opened(session)
    return workspace


# --- header, sidebar, settings ---------------------------------------------------------------

def header() -> None:
    llm = session_llm()
    st.title("Tablelens")
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        if llm.enabled:
            st.badge(llm_view.mode_label(llm), icon=":material/smart_toy:", color="blue",
                     help=llm_view.mode_help(llm))
        else:
            st.badge(llm_view.mode_label(llm), icon=":material/cloud_off:", color="gray",
                     help=llm_view.mode_help(llm))
        st.caption(md_escape(llm_view.mode_note(llm)))
    with st.expander(llm_view.mode_title(llm), icon=":material/info:"):
        for paragraph in llm_view.mode_text(llm):
            st.markdown(md_escape(paragraph))


def sidebar(workspace: Workspace | None) -> None:
    files = st.sidebar.file_uploader(
        "Add reports", accept_multiple_files=True,
        key=f"uploader_{st.session_state.get('uploads', 0)}", help=UPLOAD_HELP)
    if files:
        # A fresh uploader key clears the widget, so the same files are not added again on
        # rerun: also not after a click stopped the upload (a rerun of its own). Moved now,
        # before the upload: once a click asked for the rerun, every st.session_state access
        # of this run raises Streamlit's stop (its yield check), so a move in a `finally`
        # after the upload never happened and the next run added the files again.
        st.session_state["uploads"] = st.session_state.get("uploads", 0) + 1
        ingest_files(workspace or new_chat_workspace(), files, st.sidebar)
        st.rerun()
    st.sidebar.button("New chat", icon=":material/add_comment:", on_click=_new_chat,
                      help="Start an empty chat with its own workspace (this one stays in the "
                           "list of chats).")
    if workspace is not None and chat_store.turn_ids(workspace):
        download_chat(workspace)
        share_panel(workspace)
    chat_list(workspace)
    settings_panel()
    with st.sidebar:
        follow_newest_message()


def download_chat(workspace: Workspace) -> None:
    """The open chat as one zip (`tablelens/chat_export.py`), built only when clicked."""
    record = chat_index().get(workspace.id)
    title = record.title if record is not None else "Chat"

    def build() -> bytes:
        return chat_zip(chat_store.turns(workspace), workspace.root / "workspace.sqlite", title)

    st.sidebar.download_button(
        "Download this chat", data=build, file_name=f"{file_stem(title)}.zip",
        mime="application/zip", on_click="ignore", icon=":material/download:",
        type="tertiary", key="download_chat",
        help="The questions, every step with its SQL and tables, the answers and their cited "
             "cells as Markdown, and every step table in full in an .xlsx, in one zip.")


def _new_chat() -> None:
    """An empty chat: no id until its first upload or question (see current_workspace)."""
    if "session" in st.query_params:
        del st.query_params["session"]
    _leave_chat()


def _leave_chat() -> None:
    """Forget what was pending in the chat being left (a Remove or a Delete to confirm)."""
    for key in (REMOVING_KEY, DELETING_KEY):
        st.session_state.pop(key, None)


# --- sharing ---------------------------------------------------------------------------------

MADE_LINK_KEY = "share_link_made"  # (chat id, URL) of the link just made: shown once
MAKE_LINK_KEY = "make_share_link"  # the chat whose link was asked for (made by share_panel)
LINKS_MADE = "share_links_made"  # {(chat id, turns, options): (link id, token)} made here
UPDATE_LINK_KEY = "update_share_link"  # (chat id, link id) of the link asked to be updated
LINKS_UPDATED = "share_links_updated"  # {old link id: (new link id, token)} made here
FORKS_MADE = "share_forks_made"  # {token: chat id} of the copies this browser made
SHARE_ERRORS = "share_panel_errors"
SHARED_WORKSPACE_KEY = "_shared_workspace"  # the snapshot this browser session is viewing


def share_panel(workspace: Workspace) -> None:
    """Make a read-only link to this chat as it is now; list, update and revoke its links."""
    with st.sidebar.expander("Share this chat", icon=":material/share:"):
        st.caption(exposure.SHARE_NOTE if current_user() is None else exposure.SHARE_NOTE_LOGIN)
        if st.session_state.pop(MAKE_LINK_KEY, None) == workspace.id:
            make_link(workspace)
        chat_id, link_id = st.session_state.pop(UPDATE_LINK_KEY, (None, None))
        if chat_id == workspace.id:
            update_link(workspace, link_id)
        for message in st.session_state.pop(SHARE_ERRORS, []):
            st.error(message, icon=":material/error:")
        made = st.session_state.get(MADE_LINK_KEY)
        if made is not None and made[0] == workspace.id:
            st.success("Link made. Copy it now: it is shown only this once.",
                       icon=":material/link:")
            st.code(made[1], language=None, wrap_lines=True)
        running = runs.active(workspace.id) is not None
        with st.form("share_new_link", border=False):
            st.checkbox("Viewers may download the original files", key="share_allow_files",
                        help="Without this, viewers see the answers, steps, tables and cited "
                             "cells, but cannot download the files you uploaded.")
            st.selectbox("Link expires after", list(sharing.EXPIRY_CHOICES), key="share_expiry")
            st.form_submit_button("Make a read-only link", icon=":material/add_link:",
                                  on_click=_ask_link, args=(workspace.id,),
                                  disabled=running,
                                  help="Wait for the question being answered to end."
                                  if running else None)
        try:
            links = share_links().for_chat(workspace.id)
        except Exception:
            log.exception("could not read the share links")
            st.caption("The links of this chat could not be read; the details are in the "
                       "server log.")
            return
        if links:
            st.markdown("**Links to this chat**")
        for link in links:
            shared_link_entry(workspace, link, running)


def shared_link_entry(workspace: Workspace, link: ShareLink, running: bool) -> None:
    expiry = ("never expires" if link.expires is None else
              f"expires {chats.when_text(link.expires)}" if link.usable() else "expired")
    turns = f"{link.turns} question{'s' * (link.turns != 1)}"
    files = ", files downloadable" if link.allow_files else ""
    st.caption(md_escape(f"Made {chats.when_text(link.created)}: {turns}, {expiry}{files}."))
    with st.container(horizontal=True, gap="small"):
        st.button("Update link", key=f"share_update_{link.id}", icon=":material/autorenew:",
                  type="tertiary", on_click=_ask_update, args=(workspace.id, link.id),
                  disabled=running,
                  help="Make a new link showing the chat as it is now, with the same options; "
                       "this link stops working.")
        st.button("Revoke", key=f"share_revoke_{link.id}", icon=":material/link_off:",
                  type="tertiary", on_click=_revoke_link, args=(link.id,),
                  help="Stop this link from working, now and for good.")


def _share_url(token: str) -> str:
    """The link as the owner's browser reaches this server (Streamlit knows no public URL)."""
    try:
        base = str(st.context.url or "").split("?", 1)[0]
    except Exception:
        base = ""
    return f"{base}?share={token}"


def _hidden_secrets() -> list[str]:
    """The API keys and model servers in use: never copied into a snapshot (a provider's
    error may quote its server's address in words of its own)."""
    keys = []
    for llm in (settings().llm_settings(), session_llm()):
        key = getattr(llm, "api_key", None)
        if key is not None:
            keys.append(key.get_secret_value() if hasattr(key, "get_secret_value") else str(key))
        if server := getattr(llm, "base_url", None):
            keys.append(str(server).rstrip("/"))
    return keys


def _chat_title(workspace: Workspace) -> str:
    record = chat_index().get(workspace.id)
    return record.title if record is not None else "Shared chat"


def _ask_link(chat_id: str) -> None:
    """Hand the link to the page's next run (`share_panel`), as a deletion is handed to it
    (`_confirm_delete`): it is made under the session's script-run lock. A callback runs
    before that lock is taken, and the two clicks of a double click, each a run of its own,
    made two links at once on two threads."""
    st.session_state[MAKE_LINK_KEY] = chat_id


def make_link(workspace: Workspace) -> None:
    """Make a link to the chat as it is now; the same chat, turns and options show again
    the link this browser session made of them, while it opens (a second click would make
    a snapshot the list could not tell apart from the first).

    The link is kept, as `_fork_shared` keeps its copy, in a dict taken from the session
    before it is made: the second click of a double click stops this run at its next use of
    `st.session_state` (Streamlit's rerun), so a link recorded there only afterwards would
    be made but never shown, and the second click's run would make another."""
    allow_files = bool(st.session_state.get("share_allow_files"))
    expiry = st.session_state.get("share_expiry") or ""
    asked = (workspace.id, len(chat_store.turn_ids(workspace)), allow_files, expiry)
    made = st.session_state.setdefault(LINKS_MADE, {})
    try:
        kept = made.get(asked)
        link = share_links().get(kept[0]) if kept is not None else None
        if link is None or not link.usable():
            link, token = sharing.share_chat(
                settings().data_dir, workspace, links=share_links(),
                checkpointer=checkpointer(), title=_chat_title(workspace),
                allow_files=allow_files, expires_in=sharing.EXPIRY_CHOICES.get(expiry),
                hidden=_hidden_secrets())
            kept = made[asked] = (link.id, token)
    except Exception:
        log.exception("could not make a share link")
        st.session_state[SHARE_ERRORS] = ["The link could not be made; the details are in the "
                                          "server log. Try again."]
        return
    st.session_state[MADE_LINK_KEY] = (workspace.id, _share_url(kept[1]))


def _ask_update(chat_id: str, link_id: str) -> None:
    """Hand the update to the page's next run (`share_panel`), as `_ask_link` hands it a new
    link: made in this callback, the second click of a double click, landing while the
    first click's run was under way, updated the same old link again on another thread, and
    two new links were live, one of them never shown."""
    st.session_state[UPDATE_LINK_KEY] = (chat_id, link_id)


def update_link(workspace: Workspace, link_id: str) -> None:
    """Replace a link of this chat by a new one of the chat as it is now; asked again to
    update the same link (a double click), show the new link this browser session made of
    it, while it opens. It is kept, as `make_link` keeps its link, in a dict taken from the
    session before it is made, so a run stopped right after still leaves it for the next."""
    made = st.session_state.setdefault(LINKS_UPDATED, {})
    try:
        kept = made.get(link_id)
        link = share_links().get(kept[0]) if kept is not None else None
        if link is None or not link.usable():
            old = share_links().get(link_id)
            if old is None:  # its chat's links were deleted since the page was drawn
                return
            link, token = sharing.update_link(
                settings().data_dir, workspace, old, links=share_links(),
                checkpointer=checkpointer(), title=_chat_title(workspace),
                hidden=_hidden_secrets())
            kept = made[link_id] = (link.id, token)
    except Exception:
        log.exception("could not update a share link")
        st.session_state[SHARE_ERRORS] = ["The link could not be updated; the details are in "
                                          "the server log. Try again."]
        return
    st.session_state[MADE_LINK_KEY] = (workspace.id, _share_url(kept[1]))


def _revoke_link(link_id: str) -> None:
    try:
        sharing.revoke_link(settings().data_dir, link_id, links=share_links(),
                            checkpointer=checkpointer())
    except Exception:
        log.exception("could not revoke a share link")
        st.session_state[SHARE_ERRORS] = ["The link could not be revoked; the details are in "
                                          "the server log. Try again."]
    st.session_state.pop(MADE_LINK_KEY, None)


def shared_chat() -> None:
    """The page of a share link: its snapshot read-only, or the one page of a link that
    opens nothing (revoked, expired, unknown: the same)."""
    token = st.query_params.get("share", "")
    try:
        link = share_links().resolve(token)
    except Exception:
        log.exception("could not look a share link up")
        link = None
    root = sharing.snapshot_root(settings().data_dir, link.id) if link is not None else None
    if root is None or not (root / "workspace.sqlite").is_file():
        _close_snapshot()
        share_view.unavailable_page()
        return
    share_view.shared_page(_open_snapshot(root), link, on_fork=lambda: _fork_shared(token))


def _open_snapshot(root: Path) -> Workspace:
    """The snapshot's workspace, kept open for this browser session (as `_open_workspace`)."""
    cached = st.session_state.get(SHARED_WORKSPACE_KEY)
    if isinstance(cached, Workspace) and cached.root == root:
        return cached
    _close_snapshot()
    workspace = Workspace(root)
    st.session_state[SHARED_WORKSPACE_KEY] = workspace
    return workspace


def _close_snapshot() -> None:
    cached = st.session_state.pop(SHARED_WORKSPACE_KEY, None)
    if isinstance(cached, Workspace):
        cached.close()


def _fork_shared(token: str) -> None:
    """Copy the shared snapshot into a new chat of this viewer's, and open it."""
    link = share_links().resolve(token)
    if link is None:  # revoked or expired since the page was drawn: the page now says so
        return
    made = st.session_state.setdefault(FORKS_MADE, {})
    try:
        # A second click (a double click) opens the copy the first one made, while it exists.
        chat_id = made.get(token)
        if chat_id is None or chat_index().get(chat_id) is None:
            chat_id = sharing.fork(settings().data_dir, link, index=chat_index(),
                                   checkpointer=checkpointer(), owner=current_user())
        made[token] = chat_id
    except Exception:
        log.exception("could not fork a shared chat")
        st.session_state["share_errors"] = ["Your copy could not be made; the details are in "
                                            "the server log. Try again."]
        return
    _close_snapshot()
    del st.query_params["share"]
    st.query_params["session"] = chat_id
    _leave_chat()


# --- the list of chats ------------------------------------------------------------------------

LISTED_CHATS = 20  # chats listed in the sidebar at once; the search box finds the others
CHAT_SEARCH_KEY = "chat_search"
DELETING_KEY = "deleting_chat"  # the chat whose Delete was clicked, until confirmed or kept
DELETE_NOW_KEY = "delete_chat_now"  # the chat whose deletion was confirmed (done by main)
CHAT_LIST_ERRORS = "chat_list_errors"


def chat_list(workspace: Workspace | None) -> None:
    """The chats, last used first, with a search by title: each opens with a click, and its
    menu renames or deletes it (after a confirmation). The current chat is marked."""
    current = workspace.id if workspace is not None else None
    side = st.sidebar
    side.markdown("**Chats**")
    search = side.text_input("Search chats", key=CHAT_SEARCH_KEY, placeholder="Search by title",
                             label_visibility="collapsed", icon=":material/search:")
    for message in st.session_state.pop(CHAT_LIST_ERRORS, []):
        side.error(message, icon=":material/error:")
    scope = list_scope()
    try:
        records = (chat_index().list(search, limit=LISTED_CHATS + 1, **scope)
                   if scope is not None else [])
    except Exception:
        log.exception("could not read the chat index")
        side.caption("The list of chats could not be read; the details are in the server log.")
        return
    if not records:
        side.caption(f"No chat's title contains “{md_literal(search.strip())}”."
                     if search.strip() else "Your chats will be listed here.")
    for record in records[:LISTED_CHATS]:
        with side.container(gap=None):
            chat_entry(record, record.id == current)
    if len(records) > LISTED_CHATS:
        side.caption("Older chats are not listed here: search for their title.")


def chat_entry(record: ChatRecord, current: bool) -> None:
    """One chat in the list: its title (a click opens it), a menu to rename or delete it, and
    its file count and last use."""
    chat_id = record.id
    with st.container(horizontal=True, vertical_alignment="center", gap="small", wrap=False):
        # A title is the user's words: a label renders Markdown, links and arrows included.
        st.button(md_literal(record.title), key=f"open_chat_{chat_id}",
                  type="secondary" if current else "tertiary", width="stretch",
                  icon=":material/chat:" if current else ":material/chat_bubble_outline:",
                  on_click=_open_chat, args=(chat_id,),
                  help="This chat" if current else "Open this chat")
        with st.popover("", icon=":material/more_vert:", type="tertiary",
                        help="Rename or delete this chat"):
            with st.form(f"rename_chat_{chat_id}", border=False):
                # The field starts from the title, also once the title changed (its first
                # question, another tab's rename): a keyed field keeps its own value otherwise.
                field, shown = f"chat_title_{chat_id}", f"chat_title_shown_{chat_id}"
                if st.session_state.get(shown) != record.title:
                    st.session_state[field] = st.session_state[shown] = record.title
                st.text_input("Title", key=field, max_chars=MAX_TITLE_CHARS)
                st.form_submit_button("Rename", icon=":material/edit:",
                                      key=f"rename_chat_submit_{chat_id}",
                                      on_click=_rename_chat, args=(chat_id,))
            st.button("Delete chat", key=f"delete_chat_{chat_id}", icon=":material/delete:",
                      on_click=_ask_delete, args=(chat_id,),
                      help="Delete this chat, its files and its answers, after you confirm it")
    st.caption(md_escape(chats.chat_caption(record, current)))
    if st.session_state.get(DELETING_KEY) == chat_id:
        confirm_chat_deletion(record)


def confirm_chat_deletion(record: ChatRecord) -> None:
    """Ask before deleting a chat: it cannot be undone."""
    st.warning(f"Delete the chat “{md_literal(record.title)}”? Its files, questions, answers "
               "and step tables are removed for good; a question still being answered is "
               "stopped first.", icon=":material/delete:")
    with st.container(horizontal=True, gap="small"):
        st.button("Delete the chat", key=f"delete_chat_yes_{record.id}", type="primary",
                  on_click=_confirm_delete, args=(record.id,))
        st.button("Keep the chat", key=f"delete_chat_no_{record.id}",
                  on_click=lambda: st.session_state.pop(DELETING_KEY, None))


def _open_chat(chat_id: str) -> None:
    if st.query_params.get("session") != chat_id:
        _leave_chat()
    st.query_params["session"] = chat_id


def _rename_chat(chat_id: str) -> None:
    if not may_open(chat_id):  # only the list's own chats have this form; checked anyway
        return
    try:
        chat_index().rename(chat_id, st.session_state.get(f"chat_title_{chat_id}") or "")
    except EmptyTitle as exc:
        st.session_state[CHAT_LIST_ERRORS] = [exc.message]
    except UnknownChat:
        st.session_state[CHAT_LIST_ERRORS] = ["That chat is no longer in the list."]


def _ask_delete(chat_id: str) -> None:
    st.session_state[DELETING_KEY] = chat_id


def _confirm_delete(chat_id: str) -> None:
    """Hand the deletion to the next run of the page (`delete_pending_chat`): it happens
    under the session's script-run lock, before the page opens any workspace."""
    st.session_state.pop(DELETING_KEY, None)
    st.session_state[DELETE_NOW_KEY] = chat_id


def delete_pending_chat() -> None:
    """Delete the chat whose deletion was just confirmed (tablelens/chats.py): its run is
    stopped first, then its folder, index row and checkpoints go. Deleting the open chat
    leaves a new, empty one."""
    chat_id = st.session_state.pop(DELETE_NOW_KEY, None)
    if chat_id is None or not may_open(chat_id):
        return
    cached = st.session_state.get("_workspace")
    if isinstance(cached, Workspace) and cached.id == chat_id:
        cached.close()  # the folder is about to go: no connection of this session stays on it
        del st.session_state["_workspace"]
    try:
        chats.delete_chat(settings().data_dir, chat_id, index=chat_index(),
                          checkpointer=checkpointer())
        sharing.forget_chat(settings().data_dir, chat_id, links=share_links(),
                            checkpointer=checkpointer())
    except chats.RunStillGoing as exc:
        st.session_state[CHAT_LIST_ERRORS] = [exc.message]
        return
    except Exception:
        log.exception("could not delete a chat")
        st.session_state[CHAT_LIST_ERRORS] = [
            "The chat could not be deleted completely; the details are in the server log. Try "
            "again."]
    if st.query_params.get("session") == chat_id:
        del st.query_params["session"]
        _leave_chat()


# The session's chat model and the panel's fields live in st.session_state under these keys:
# the browser tab's memory, never a workspace, the transcript, app.sqlite, a log or the URL.
SESSION_LLM = "llm_session"  # the LLMSettings applied for this browser session
LLM_ERRORS = "llm_errors"  # field -> what is wrong with it, from the last Apply or Test
LLM_TEST = "llm_test"  # (ok, message) of the last Test connection
LLM_FIELDS = {"engine": "llm_engine", "model": "llm_model", "base_url": "llm_base_url",
              "api_key": "llm_api_key", "timeout_s": "llm_timeout_s",
              "max_retries": "llm_max_retries", "max_calls": "llm_max_calls",
              "max_output_tokens": "llm_max_output_tokens", "cache": "llm_cache"}


def session_llm() -> Any:
    """The chat model of this browser session: what its Settings panel applied, else the
    server's environment."""
    chosen = st.session_state.get(SESSION_LLM)
    return chosen if chosen is not None else settings().llm_settings()


def _form_values() -> llm_view.LLMForm:
    """The panel's fields as they are now (after a submit: as submitted)."""
    start = llm_view.form_from(session_llm())
    values = {name: st.session_state.get(key, getattr(start, name))
              for name, key in LLM_FIELDS.items()}
    return llm_view.LLMForm(**values)


def _checked_form() -> Any:
    """The settings the fields describe, or None with the fields' problems recorded."""
    chosen, errors = llm_view.settings_from(_form_values(), settings().llm_settings())
    st.session_state[LLM_ERRORS] = errors
    return chosen


def _apply_llm() -> None:
    chosen = _checked_form()
    st.session_state.pop(LLM_TEST, None)
    if chosen is not None:
        st.session_state[SESSION_LLM] = chosen


def _test_llm() -> None:
    """One tiny call with the fields' settings: the model's name, or the exact error."""
    chosen = _checked_form()
    if chosen is None:
        st.session_state[LLM_TEST] = (False, "Fix the fields marked above, then test again.")
    elif not chosen.enabled:
        st.session_state[LLM_TEST] = (True, "The offline engine needs no connection.")
    else:
        st.session_state[LLM_TEST] = ping(chosen)


def ping(chosen: Any) -> tuple[bool, str]:
    """Reach the model once. The client is imported here: LangChain's provider packages take
    a while to load, and an offline page never needs them."""
    from agent.llm.client import LLMClient, LLMFailure

    try:
        name = LLMClient(chosen).ping()
    except LLMFailure as exc:
        return False, str(getattr(exc, "message", "") or exc)
    except Exception:
        log.exception("the connection test failed unexpectedly")
        return False, ("The test failed because of an unexpected problem; the details are in "
                       "the server log.")
    return True, f"Connected: {name} answered, at {llm_view.destination(chosen)}."


def _reset_llm() -> None:
    for key in (SESSION_LLM, LLM_ERRORS, LLM_TEST, *LLM_FIELDS.values()):
        st.session_state.pop(key, None)


def _field_error(errors: Mapping[str, str], name: str) -> None:
    if name in errors:
        st.caption(f":red[:material/error: {md_escape(errors[name])}]")


def settings_panel() -> None:
    """The settings section: the chat model for this browser session, and where data lives."""
    with st.sidebar.expander("Settings", icon=":material/tune:"):
        llm_settings_form()
        st.markdown("**Data**")
        st.caption(f"Workspaces live under `{settings().data_dir}`.")


def llm_settings_form() -> None:
    """Engine, model, server, key and limits, applied to this browser session only."""
    defaults = settings().llm_settings()
    current = session_llm()
    st.markdown("**Answering engine**")
    if current.enabled:
        st.markdown(f":material/smart_toy: {md_escape(llm_view.mode_label(current))}")
    else:
        st.markdown(f":material/cloud_off: {llm_view.OFFLINE} (no LLM configured)")
    st.caption("Changes here apply to this browser tab only, until it is reloaded or closed "
               "(the key is never stored); the server's defaults stay as they are for everyone "
               "else."
               + (" This tab uses its own choice." if SESSION_LLM in st.session_state else ""))
    start = llm_view.form_from(current)
    for name, key in LLM_FIELDS.items():
        st.session_state.setdefault(key, getattr(start, name))
    errors = st.session_state.get(LLM_ERRORS) or {}
    with st.form("llm_settings", border=False):
        st.selectbox("Engine", llm_view.engine_options(defaults), key=LLM_FIELDS["engine"],
                     help="Offline: the rules only, nothing leaves this machine. Otherwise "
                          "the question and the relevant table cells go to the model.")
        _field_error(errors, "engine")
        st.text_input("Model", key=LLM_FIELDS["model"],
                      placeholder="gpt-4o-mini, claude-sonnet-4-5, qwen2.5:7b",
                      help="The model's name as the provider or server knows it.")
        _field_error(errors, "model")
        st.text_input("Server address", key=LLM_FIELDS["base_url"],
                      placeholder="http://localhost:8000/v1",
                      help="For an OpenAI-compatible server (vLLM, llama.cpp, LM Studio) and "
                           f"for Ollama (empty: {llm_view.OLLAMA_URL}; another address is "
                           "reached through its OpenAI-compatible /v1 endpoint). Not used for "
                           "OpenAI or Anthropic.")
        _field_error(errors, "base_url")
        form = _form_values()
        st.text_input("API key", key=LLM_FIELDS["api_key"], type="password",
                      help="Kept only in this browser tab's memory: never written to the "
                           "workspace, the transcript, a log or the address bar.")
        st.caption(md_escape(llm_view.key_note(form, defaults)))
        st.number_input("Timeout per call (seconds)", min_value=1.0, max_value=3600.0,
                        step=10.0, key=LLM_FIELDS["timeout_s"])
        _field_error(errors, "timeout_s")
        st.number_input("Retries per call", min_value=0, max_value=10, step=1,
                        key=LLM_FIELDS["max_retries"],
                        help="After a timeout, a server error, a refused connection or a reply "
                             "that does not parse.")
        _field_error(errors, "max_retries")
        st.number_input("Most calls per question", min_value=1, max_value=50, step=1,
                        key=LLM_FIELDS["max_calls"], help="Retries included.")
        _field_error(errors, "max_calls")
        st.number_input("Most tokens per reply", min_value=1, max_value=100_000, step=256,
                        key=LLM_FIELDS["max_output_tokens"])
        _field_error(errors, "max_output_tokens")
        st.checkbox("Keep replies in this chat's workspace (a repeated question makes no call)",
                    key=LLM_FIELDS["cache"])
        with st.container(horizontal=True, gap="small"):
            st.form_submit_button("Apply", icon=":material/check:", on_click=_apply_llm,
                                  key="llm_apply")
            st.form_submit_button("Test connection", icon=":material/network_check:",
                                  on_click=_test_llm, key="llm_test_connection")
    if errors:
        st.caption(":red[Not applied: fix the fields marked above.]")
    test = st.session_state.get(LLM_TEST)
    if test is not None:
        ok, message = test
        if ok:
            st.success(message, icon=":material/check_circle:")
        else:
            st.error(message, icon=":material/error:")
    st.button("Reset to server defaults", icon=":material/restart_alt:", type="tertiary",
              on_click=_reset_llm, key="llm_reset",
              help="Forget this tab's choices and use the server's settings again.")


def ingest_files(workspace: Workspace, files: Sequence[Any], place: Any) -> str:
    """Add uploaded files, one progress bar each (with "Stop upload"); record how each went
    in the chat.

    Each upload runs on a worker thread while this thread draws its bar
    (`tablelens/uploads.py`): a click on Stop, or on anything else, reruns the script, and
    Streamlit's rerun exception raised at the bar's next update stops the upload with nothing
    stored; the chat then says "upload stopped" for that file and "not added" for the files
    after it, and the exception goes on so that the rerun happens. (Only the page, never the
    chat box's fragment, adds files: Streamlit holds a click on a fragment's own widget until
    the fragment's run ends.)
    """
    batch = chat_store.new_upload_batch()
    try:
        _ingest_each(workspace, files, place, batch)
    finally:  # also when a click stopped the upload (Streamlit's rerun goes on after this)
        note_use(workspace, file_name=files[0].name if files else None)
    return batch


def _ingest_each(workspace: Workspace, files: Sequence[Any], place: Any, batch: str) -> None:
    for index, file in enumerate(files):
        name = file.name
        bar = place.progress(0.0, text=f"{name}: reading")
        control = place.empty()
        control.button("Stop upload", key=f"stop_upload_{batch}_{index}",
                       icon=":material/stop_circle:", type="tertiary",
                       help="Stop adding this file (nothing of it is stored) and the files "
                            "after it.")

        def show(fraction: float, stage: str, bar: Any = bar, name: str = name) -> None:
            bar.progress(min(max(fraction, 0.0), 1.0), text=f"{name}: {stage}")

        def interrupted(added: tuple[SourceInfo, bool] | None, error: BaseException | None,
                        index: int = index, name: str = name) -> None:
            if added is not None:  # it was stored before the click reached it
                record_upload(workspace, batch, name, added)
            else:
                chat_store.add_upload(workspace, batch, name, ok=False,
                                      message=error.message if isinstance(error, IngestError)
                                      else IngestStopped(name).message)
            for later in files[index + 1:]:
                chat_store.add_upload(workspace, batch, later.name, ok=False,
                                      message=f"{later.name}: not added; the upload was "
                                              "stopped.")

        try:
            added = uploads.run_upload(
                lambda cancel, progress, file=file, name=name: add_prepared(
                    workspace, file, name, limits=settings().limits(), progress=progress,
                    cancel=cancel),
                show, on_interrupt=interrupted)
            record_upload(workspace, batch, name, added)
        except IngestError as exc:
            chat_store.add_upload(workspace, batch, name, ok=False, message=exc.message)
        except Exception:
            log.exception("ingest of %s failed", name)
            chat_store.add_upload(
                workspace, batch, name, ok=False,
                message=f"{name}: could not be read because of an unexpected problem (the "
                        "details are in the server log). Try saving it again as .xlsx or CSV.")
        bar.empty()
        control.empty()


def record_upload(workspace: Workspace, batch: str, name: str,
                  added: tuple[SourceInfo, bool]) -> None:
    """Say in the chat what an upload added (or that the chat had the file already)."""
    info, new = added
    n_tables = len(workspace.table_ids(info.sha256))
    n_grids = len(workspace.grids(info.sha256))
    tables = f"{n_tables} table{'s' * (n_tables != 1)}"
    n_passages = count_chunks(workspace.db, info.sha256)
    if n_passages:  # a document's text, searched and cited beside its tables
        tables += f" and {n_passages:,} passage{'s' * (n_passages != 1)} of text"
    # Stored under a name of its own when another file has its name (storage/workspace.py).
    added_as = (name if info.name == name else
                f"{name} as {info.name}, since this chat has another file of that name")
    message = (f"{name} is already in this chat." if not new and info.name == name else
               f"{name} has the same contents as {info.name}, which is already in this chat."
               if not new else
               f"Added {added_as}: {n_grids} sheet{'s' * (n_grids != 1)}, {tables}."
               if Path(name).suffix.lower() in SHEET_FORMATS else
               f"Added {added_as}: {tables}.")  # a page or a text file has no sheets
    chat_store.add_upload(workspace, batch, name, ok=True, message=message, tables=n_tables)


# --- the chat ---------------------------------------------------------------------------------

def isolated(what: str, draw: Callable[[], Any]) -> None:
    """Draw one part of a turn; if it fails, only that part becomes a short notice.

    A failing chart, table or citation list must never hide the rest of the turn: its step
    text, the answer and the refusal reason stay on screen, live and after a reload.
    """
    slot = st.empty()
    try:
        with slot.container():
            draw()
    except Exception:  # Streamlit's rerun and stop signals are BaseExceptions: they pass
        log.exception("could not show the %s", what)
        slot.caption(f":material/warning: The {what} could not be shown here; the details "
                     "are in the server log.")


def show_chat(workspace: Workspace | None) -> None:
    """The transcript, the question being answered, and the chat box.

    The chat box is in a fragment (`question_area`): a new question reruns only it, so the
    earlier turns are neither sent nor redrawn and the wait for the first step does not grow
    with the chat. The fragment shows the question's first step in `live`, a container of the
    page, then reruns the page, which follows the question to its end in the same place (a
    click on a fragment's own widget waits until the fragment's run ends, so Stop must be the
    page's) and reruns once more with the turn in the transcript. Every turn has a slot of its
    own, in order; the last RECENT_TURNS turns are drawn with their widgets, the older ones as
    one block of HTML in the first turn's slot. A new chat (no workspace yet) is the intro
    and the chat box.
    """
    if workspace is None:
        if bad_link := st.session_state.pop(BAD_LINK_KEY, None):
            st.info(bad_link, icon=":material/link_off:")
        live = st.container()
        question_area(None, live, {}, empty_chat=True)
        if PENDING_UPLOAD_KEY in st.session_state:  # the chat's id got lost on the way
            add_pending_upload(new_chat_workspace(), live)
        return
    active = runs.active(workspace.id)  # before reading the store: see runs.py
    skip = active.run_id if active is not None else None
    ids = [run_id for run_id in chat_store.turn_ids(workspace) if run_id != skip]
    places = workspace.table_places()
    slots = {run_id: st.container() for run_id in ids}
    live = st.container()
    place: dict[str, Any] = {}
    question_area(workspace, live, place, not ids and active is None)
    if PENDING_UPLOAD_KEY in st.session_state:
        add_pending_upload(workspace, live)
    shown = [turn for turn in chat_store.turns(workspace)
             if turn.run_id != skip and turn.run_id in slots]
    first = recent_start(shown)
    older, recent = shown[:first], shown[first:]
    newest = next((t for t in reversed(recent) if not t.is_upload), None)
    # A slot keeps what it showed last time until the script ends: a turn folded since then
    # has its messages blanked, or it would show twice meanwhile.
    drawn_before = st.session_state.get(WIDGET_TURNS_KEY, set())
    for index, turn in enumerate(older):
        with slots[turn.run_id]:
            if index == 0:  # the block of older turns is in the first turn's slot
                isolated("earlier turns",
                         lambda: st.html(older_turns_html(older, places, RECENT_TURNS)))
            if turn.run_id in drawn_before:
                for _ in range(TURN_MESSAGES - (index == 0)):
                    st.empty()
    for turn in recent:
        draw = render_turn if turn is newest else render_compact_turn
        with slots[turn.run_id]:
            isolated("turn", lambda turn=turn, draw=draw: draw(workspace, turn, places))
    st.session_state[WIDGET_TURNS_KEY] = {turn.run_id for turn in recent}
    if active is not None:
        with place["slot"].container():
            isolated("question being answered", lambda: follow(workspace, active, places))
        st.rerun()  # the question is over: the page redraws with it in the transcript


@st.fragment
@one_run_at_a_time
def question_area(workspace: Workspace | None, live: Any, place: dict[str, Any],
                  empty_chat: bool) -> None:
    """The chat box; a new question's first step, shown in `live` (see show_chat).

    Its slot in `live` is made on every run of the page too (Streamlit keeps that place for
    the fragment's reruns) and handed to the page in `place`: the page then follows the
    question in the same slot, so what the fragment showed is replaced in place, never shown
    twice.
    """
    prompt = st.bottom.chat_input("Ask about your reports, or attach files with the + button",
                                  accept_file="multiple", submit_mode="disable", key="chat")
    slot = place["slot"] = live.empty()
    if not prompt:
        if empty_chat:
            slot.markdown(INTRO)
        return
    text = (prompt if isinstance(prompt, str) else getattr(prompt, "text", "")) or ""
    if not text.strip() and not getattr(prompt, "files", None):
        if empty_chat:
            slot.markdown(INTRO)
        st.toast("The message held only spaces: type a question to ask.", icon=":material/edit:")
        return
    workspace = workspace or new_chat_workspace()
    before = len(chat_store.turn_ids(workspace))
    with slot.container():
        places = workspace.table_places()
        run = handle_prompt(workspace, prompt, places)
        if run is not None:
            isolated("question being answered",
                     lambda: follow(workspace, run, places, hand_off_s=HAND_OFF_S))
    if run is not None or len(chat_store.turn_ids(workspace)) != before:
        # The page follows a question still running (with Stop) and shows what the message
        # added (the answer, its files, or why it cannot run) in the transcript and the
        # workspace panel. (A question refused because another one runs keeps its notice.)
        time.sleep(RERUN_AFTER_S)
        st.rerun()


def handle_prompt(workspace: Workspace, prompt: Any, places: dict[str, tuple[str, str]]
                  ) -> runs.Run | None:
    """Record the question and start its run (followed by the caller); a question that cannot
    run gets its message here. A message with files is handed to the page, which adds them
    and then asks (`add_pending_upload`): inside this fragment, a click on Stop upload would
    wait for the fragment's run to end."""
    text = (prompt if isinstance(prompt, str) else getattr(prompt, "text", "")) or ""
    files = list(getattr(prompt, "files", None) or [])
    if files:
        if chat_deleted(workspace):  # the page would add them to a new chat unasked
            leave_deleted_chat(workspace, text)
        st.session_state[PENDING_UPLOAD_KEY] = (text, files)
        st.rerun()  # the whole page: its run adds the files, with Stop
    return ask_in_chat(workspace, text, [], places)


def add_pending_upload(workspace: Workspace, live: Any) -> None:
    """Add the files a chat message brought (with their bars and Stop upload), then ask its
    question; the page is then drawn again, following the question.

    The message is taken out of the session first: a click that stops the upload reruns the
    page, and the files must not be added again then (the question goes with them)."""
    text, files = st.session_state.pop(PENDING_UPLOAD_KEY)
    with live:
        with st.chat_message("user"):
            st.markdown(" ".join(f":material/attach_file: {md_escape(f.name)}" for f in files))
            batch = ingest_files(workspace, files, st.container())
        unadded: list[str] = []
        for turn in chat_store.turns(workspace):
            if turn.run_id == batch:
                render_uploads(turn.uploads)
                unadded = [str(u.get("name")) for u in turn.uploads if not u.get("ok")]
        before = len(chat_store.turn_ids(workspace))
        if unadded and text.strip():
            # Asked of the other files, a question about the one that failed gets an answer
            # to another question ("the word corrupt.xlsx does not match anything ...").
            run = None
            hold_back(workspace, text, unadded_message(unadded))
        else:
            run = ask_in_chat(workspace, text, [f.name for f in files],
                              workspace.table_places())
    if run is not None or not text.strip() or len(chat_store.turn_ids(workspace)) != before:
        # The page follows the question and shows the files in the transcript. (A question
        # refused because another one runs keeps its notice.)
        st.rerun()


def hold_back(workspace: Workspace, text: str, why: str) -> str:
    """Record a question that is not asked, with why; return its turn's run id."""
    run_id = new_run_id()
    chat_store.add_question(workspace, run_id, text.strip())
    chat_store.add_error(workspace, run_id, why)
    return run_id


def ask_in_chat(workspace: Workspace, text: str, files: list[str],
                places: dict[str, tuple[str, str]]) -> runs.Run | None:
    """Record a question and start its run; a question that cannot run gets its message."""
    text = text.strip()
    if not text:
        return None
    if chat_deleted(workspace):
        leave_deleted_chat(workspace, text)
    note_use(workspace, question=text)
    if not workspace.sources():
        run_id = hold_back(workspace, text, NO_FILES_MESSAGE)
        render_turn(workspace, chat_store.Turn(run_id, {"text": text}, error=NO_FILES_MESSAGE),
                    places)
        return None
    try:
        return runs.start(workspace, text, files=files, llm=session_llm(),
                          graph=chat_graph())
    except runs.RunInProgress as exc:
        st.warning(exc.message, icon=":material/hourglass_top:")
        return None


def chat_deleted(workspace: Workspace) -> bool:
    """Whether the chat was deleted (in another window) since this page opened it. The disk
    is asked: the page's open connection still reads the deleted database."""
    return not workspace.db_path.is_file()


def leave_deleted_chat(workspace: Workspace, text: str) -> NoReturn:
    """Go to a new, empty chat saying that the one shown was deleted and `text` was not
    asked. Asking there made the deleted chat anew (its folder, and a row in the list with
    its old file count) while this page went on showing the old transcript, without the
    answer."""
    if st.session_state.get("_workspace") is workspace:
        del st.session_state["_workspace"]
    workspace.close()
    _new_chat()
    what = (f"your question “{md_literal(text.strip())}” was not asked" if text.strip() else
            "your files were not added")
    st.session_state[BAD_LINK_KEY] = DELETED_CHAT_MESSAGE.format(what=what)
    st.rerun()


def render_question(question: Mapping[str, Any] | None) -> None:
    with st.chat_message("user"):
        # The question as typed: st.text reads no Markdown, so "--" stays two hyphens, an
        # address stays text, line breaks stay, and nothing unseen goes into a copy of it.
        st.text((question or {}).get("text", ""))
        files = (question or {}).get("files") or []
        if files:
            st.caption("Attached: " + md_escape(", ".join(files)))


def render_uploads(uploads: Sequence[Mapping[str, Any]]) -> None:
    with st.chat_message("assistant", avatar=":material/upload_file:"):
        for item in uploads:
            if item.get("ok"):
                st.caption(md_escape(item.get("message", "")))
            else:
                st.error(item.get("message", ""), icon=":material/error:")


def render_turn(workspace: Workspace, turn: chat_store.Turn,
                places: dict[str, tuple[str, str]]) -> None:
    """Render the newest finished (or interrupted) turn from the transcript, a widget per
    step (the turns before it: `render_compact_turn`)."""
    if turn.is_upload:
        render_uploads(turn.uploads)
        return
    render_question(turn.question)
    with st.chat_message("assistant"):
        # The same slots as a followed run, so a rerun that finds the run already over
        # replaces the live layout element for element (no stale Stop button). A turn is
        # laid out the same on every rerun: what a rerun draws fewer of stays on screen
        # until the script ends.
        st.empty()
        trace = Trace(workspace, turn.run_id, places)
        st.empty()
        outcome = outcome_of(turn.answer, turn.error, active=False)
        trace.finished(turn.events, outcome)
        render_outcome(workspace, turn.run_id, outcome, turn.answer, turn.error, turn=turn)


def recent_start(turns: Sequence[chat_store.Turn]) -> int:
    """Where the turns drawn with widgets start: at the RECENT_TURNS-th last question, so
    upload notices (one element each) never push answers out of the window."""
    asked = [i for i, turn in enumerate(turns) if not turn.is_upload]
    return asked[-RECENT_TURNS] if len(asked) > RECENT_TURNS else 0


@st.fragment
@one_run_at_a_time
def render_compact_turn(workspace: Workspace, turn: chat_store.Turn,
                        places: dict[str, tuple[str, str]]) -> None:
    """Render a finished turn before the newest: its timeline as one HTML element (each step
    opens natively, with everything it said), its tables in one expander that draws them
    only while open, then the answer and its cited cells as for the newest turn."""
    if turn.is_upload:
        render_uploads(turn.uploads)
        return
    render_question(turn.question)
    with st.chat_message("assistant"):
        outcome = outcome_of(turn.answer, turn.error, active=False)
        steps = close_steps(group_steps(turn.events), outcome)
        isolated("steps", lambda: st.html(steps_html(steps, places)))
        tabled = [step for step in steps if step.table and step.state != "running"]
        if tabled:
            isolated("intermediate tables",
                     lambda: step_tables(workspace, turn.run_id, tabled))
        render_outcome(workspace, turn.run_id, outcome, turn.answer, turn.error, turn=turn)


def step_tables(workspace: Workspace, run_id: str, steps: Sequence[StepView]) -> None:
    """The tables of a turn's steps, to sort, chart and download: drawn only while open."""
    count = f"{len(steps)} intermediate table{'s' * (len(steps) != 1)}"
    with st.expander(f"{count}: sort, chart and download", icon=":material/table_view:",
                     key=f"tables_{run_id}", on_change="rerun") as expander:
        if not expander.open:  # an expander with no content draws no toggle
            st.html('<small style="opacity: 0.6">The tables of the steps above.</small>')
            return
        for step in steps:
            st.markdown(f"**{md_escape(step.label)}**")
            isolated("intermediate table",
                     lambda step=step: render_table(workspace, f"{run_id}_{step.seq}",
                                                    step.table or {}))


def follow(workspace: Workspace, run: runs.Run, places: dict[str, tuple[str, str]], *,
           hand_off_s: float | None = None) -> None:
    """Render a run live: each step when it starts, updated when it ends, then the answer.
    With `hand_off_s` (the chat box's fragment), stop following a run still going after that
    long, once a step shows, and leave the Stop button's place empty: the page that takes the
    run over draws it (see HAND_OFF_S)."""
    render_question({"text": run.question, "files": run.files})
    with st.chat_message("assistant"):
        stop_slot = st.empty()
        if hand_off_s is None:
            stop_slot.button("Stopping..." if run.stopping else "Stop", key=f"stop_{run.run_id}",
                             icon=":material/stop_circle:", on_click=runs.stop, args=(run.run_id,),
                             disabled=run.stopping,
                             help="Stop this question; the steps so far are kept.")
        trace = Trace(workspace, run.run_id, places)
        clock = st.empty()
        seen = 0
        while True:
            new = run.wait(seen, HEARTBEAT_S)
            if new:
                seen += len(new)
                trace.update(run.events[:seen])
            if (hand_off_s is not None and seen and not run.done
                    and time.monotonic() - run.started > hand_off_s):
                return
            if run.done and seen >= len(run.events):
                break
            clock.caption(f"Working... {time.monotonic() - run.started:.1f} s"
                          + (" (stopping)" if run.stopping else ""))
        clock.empty()
        stop_slot.empty()
        outcome = outcome_of(run.answer, run.error, active=False)
        trace.close(outcome)
        render_outcome(workspace, run.run_id, outcome, run.answer, run.error)


class Trace:
    """The step timeline of one run: one step expander per node run.

    Expanders, not `st.status`: creating a status sleeps 50 ms (Streamlit's own guard against
    a quick update), about 7 times a turn on every rerun (5.4 s a rerun at 16 turns). While a
    run is followed, a step whose state, title or detail changes is redrawn in its own slot,
    with the icon st.status would show, and its body drawn with it. Once the run is over
    (`close`), and for the newest finished turn, a step is an expander that remembers being open
    across reruns (keyed by run and step) and draws its body only while open: a long chat is
    a list of step titles, not hundreds of hidden tables and charts the page would send and
    lay out on every rerun.
    """

    def __init__(self, workspace: Workspace, run_id: str,
                 places: dict[str, tuple[str, str]]) -> None:
        self.workspace = workspace
        self.run_id = run_id
        self.places = places
        self.box = st.container()
        self.shown: dict[int, tuple[Any, tuple]] = {}  # seq -> (slot, what was drawn)
        self.steps: list[StepView] = []

    def update(self, events: Sequence[Mapping[str, Any]]) -> None:
        """Show the steps of these events (all of the run's events so far)."""
        self.steps = group_steps(events)
        self._draw(final=False)

    def finished(self, events: Sequence[Mapping[str, Any]], outcome: Outcome) -> None:
        """Show a finished run's timeline (drawn once, as it stays)."""
        self.steps = group_steps(events)
        self.close(outcome)

    def close(self, outcome: Outcome) -> None:
        """Mark steps that never ended once the run is over; draw the finished timeline."""
        self.steps = close_steps(self.steps, outcome)
        self._draw(final=True)

    def _draw(self, final: bool) -> None:
        for step in self.steps:
            shown = self.shown.get(step.seq)
            drawn = (final, step.state, step.label, step.detail, step.sql)
            if shown is not None and shown[1] == drawn:
                continue
            if shown is not None:
                slot = shown[0]  # a live step: redrawn in the slot it was first drawn in
            elif final:
                slot = self.box  # a finished turn's step, drawn once: no slot of its own
            else:
                with self.box:
                    slot = st.empty()
            with slot if slot is self.box else slot.container():
                if final:
                    self._finished_step(step)
                else:
                    with st.expander(step.label, icon=step_icon(step), type="step"):
                        render_step_body(self.workspace, self.run_id, step, self.places)
            self.shown[step.seq] = (slot, drawn)

    def _finished_step(self, step: StepView) -> None:
        with st.expander(step.label, icon=step_icon(step), type="step",
                         key=step_key(self.run_id, step), on_change="rerun") as expander:
            if expander.open:
                render_step_body(self.workspace, self.run_id, step, self.places)
            else:  # a step expander with no content draws no toggle at all; plain HTML, not a
                # caption: nothing to parse as Markdown each time the page reruns
                st.html(f"<small style=\"opacity: 0.6\">"
                        f"{html.escape(details_line(step))}</small>")


def step_key(run_id: str, step: StepView) -> str:
    """The widget key of a finished step's expander: stable across reruns."""
    return f"step_{run_id}_{step.seq}"


def render_step_body(workspace: Workspace, run_id: str, step: StepView,
                     places: dict[str, tuple[str, str]]) -> None:
    """What one step did: detail, SQL, retrieved items, grounded cells, its table, errors.

    Each part is isolated: one that fails becomes a notice and the others still show.
    """
    if step.detail:
        st.markdown(md_escape(step.detail))
    if step.error:
        st.error(str(step.error.get("message") or "This step failed."),
                 icon=":material/error:")
    if step.sql:
        st.code(step.sql, language="sql", wrap_lines=True)
        if names := sql_names_line(step.sql, places):
            st.caption(md_escape(names))
    if step.retrieved:
        def retrieved() -> None:
            columns, rows = retrieved_rows(step.retrieved, places)
            st.caption("Retrieved")
            st.dataframe(table_frame(columns, rows), hide_index=True)
        isolated("list of retrieved items", retrieved)
    if step.cells or step.evidence_sets:
        isolated("list of grounded cells",
                 lambda: st.caption("Grounded cells: " + md_escape(
                     grounded_line(step.cells, step.evidence_sets, places))))
    if step.table and step.state != "running":
        isolated("intermediate table",
                 lambda: render_table(workspace, f"{run_id}_{step.seq}", step.table))
    if step.sql_attempts:
        isolated("list of SQL attempts", lambda: st.html(attempts_html(step.sql_attempts)))
    if step.llm:  # one element for all the step's calls, each a native disclosure
        isolated("list of LLM calls", lambda: st.html(calls_html(step.llm)))
    st.caption("Running..." if step.state == "running" else details_line(step))


def render_table(workspace: Workspace, key: str, table: Mapping[str, Any]) -> None:
    """An intermediate table: its rows (header paths and row paths, the sheet row last), its
    size, CSV and xlsx downloads, and a chart below it when it fits."""
    view = table_view(table)
    st.caption(md_escape(view.caption()))
    config: dict[str, Any] = {label: st.column_config.Column(label, help=note)
                              for label, note in (view.notes or {}).items()}
    if view.sheet_row:
        config[view.sheet_row] = st.column_config.NumberColumn(
            view.sheet_row, width="small", format="%d", help="The row of these cells on the sheet")
    st.dataframe(table_frame(view.columns, view.rows), hide_index=True,
                 column_config=config or None)
    if not view.truncated:
        spec = chart_for(view.columns, view.rows, skip={view.sheet_row or ""})
        if spec is not None:
            isolated("chart", lambda: draw_chart(spec))
    download_buttons(workspace, key, table, view)


def draw_chart(spec: ChartSpec) -> None:
    """A line chart over periods; horizontal bars otherwise (labels stay readable)."""
    st.vega_lite_chart(spec=vega_lite_spec(spec), width="stretch")


def render_outcome(workspace: Workspace, run_id: str, outcome: Outcome,
                   answer: Mapping[str, Any] | None, error: str | None,
                   turn: chat_store.Turn | None = None) -> None:
    """The answer with its confidence, chart and cited cells; or why there is none. A turn
    of the transcript (`turn`) can also be edited and asked again.

    The answer (or the reason there is none) is drawn first and on its own, so a chart or a
    citation that fails to draw cannot hide it.
    """
    if turn is not None and turn.superseded_by:
        st.caption(f":material/history: {SUPERSEDED_NOTE}")
    if outcome == "failed":
        st.error(error or "The question could not be answered.", icon=":material/error:")
        return
    if outcome == "interrupted":
        st.warning(INTERRUPTED_MESSAGE, icon=":material/warning:")
        return
    if answer is None:
        return
    message = answer_message(answer)
    usage = usage_line(answer)
    if message is not None:
        icon = ":material/stop_circle:" if outcome == "cancelled" else ":material/help:"
        st.warning(message, icon=icon)
        if usage:
            st.caption(md_escape(usage))
    else:
        # The answer, its confidence badge and its LLM cost are one element: each element
        # costs the browser work on every rerun, for every turn on the page.
        color = CONFIDENCE_COLORS.get(str(answer.get("confidence_label", "low")), "gray")
        st.markdown(f"### {md_escape(answer_text(answer))}\n\n"
                    f":{color}-badge[{md_escape(confidence_text(answer))}]"
                    + (f" :gray[{md_escape(usage)}]" if usage else ""))
        if failure := model_failure_note(answer):
            st.warning(md_escape(failure), icon=":material/cloud_off:")
        spec = chart_for_answer(answer)
        if spec is not None:
            isolated("chart", lambda: draw_chart(spec))
    evidence = list(answer.get("evidence") or [])
    sets = list(answer.get("evidence_sets") or [])
    if evidence or sets:
        isolated("list of cited cells",
                 lambda: citation_buttons(workspace, run_id, evidence, sets))
    with st.container(horizontal=True, gap="small"):
        if outcome != "cancelled":
            if message is None:
                isolated("copy button", lambda: copy_button(workspace, answer))
            isolated("report button", lambda: report_button(workspace, run_id))
        if turn is not None and turn.question and turn.question.get("text"):
            isolated("edit button", lambda: reask_button(workspace, turn))


def reask_button(workspace: Workspace, turn: chat_store.Turn) -> None:
    """"Edit and ask again": the question in a box to change, then a new turn asks it; this
    turn stays where it is, marked as superseded."""
    question = str((turn.question or {}).get("text", ""))
    with st.popover("Edit and ask again", icon=":material/edit:", type="tertiary",
                    help="Change the question and ask it again. This answer stays in the "
                         "chat, marked as superseded."), \
            st.form(key=f"reask_{turn.run_id}", border=False):
        text = st.text_area("Question", value=question)
        if st.form_submit_button("Ask again", type="primary"):
            if not text.strip():
                st.warning("Type a question to ask.", icon=":material/edit:")
                return
            run = ask_in_chat(workspace, text, [], workspace.table_places())
            if run is not None:
                chat_store.add_superseded(workspace, turn.run_id, run.run_id)
                retitle_after_edit(workspace, question, text)
                st.rerun()


def retitle_after_edit(workspace: Workspace, old: str, new: str) -> None:
    """A chat titled by the question just edited takes the edited question's title (a title
    the user typed stays). A failure is logged only: the question goes on."""
    try:
        record = chat_index().get(workspace.id)
        if record is not None and record.title_from == "question" \
                and record.title == title_of_question(old):
            chat_index().upsert(dataclasses.replace(record, title=title_of_question(new)))
    except Exception:
        log.exception("could not retitle this chat after an edited question")


def copy_button(workspace: Workspace, answer: Mapping[str, Any]) -> None:
    """The answer and its citations as text, with the code block's own copy button."""
    with st.popover("Copy", icon=":material/content_copy:", type="tertiary",
                    help="The answer and the cells it cites, as text to paste elsewhere."):
        st.code(copy_text(answer, workspace.table_places()), language=None, wrap_lines=True)


def report_button(workspace: Workspace, run_id: str) -> None:
    """The "Report a wrong answer" button under a turn's outcome (a note, then it is kept),
    or that it was reported."""
    if run_id in reports.reported_ids(workspace):
        st.caption(":material/flag: Reported as a wrong answer. Thank you.")
        return
    with st.popover("Report a wrong answer", icon=":material/flag:", type="tertiary",
                    help="Keep this question, its answer and every step in the chat's "
                         "workspace as a wrong answer, to look into (`tablelens reports` lists "
                         "them)."), st.form(key=f"report_{run_id}", border=False):
        note = st.text_area("What is wrong with it? (optional)",
                            max_chars=reports.NOTE_MAX_CHARS,
                            placeholder="For example: the total should include Q3, or the "
                                        "right value is 410.")
        if st.form_submit_button("Send the report", type="primary"):
            reports.report(workspace, run_id, note)
            st.rerun()


OPEN_CITATION_KEY = "open_citation"  # (run id, option) of the citation clicked


def citation_buttons(workspace: Workspace, run_id: str,
                     evidence: Sequence[Mapping[str, Any]],
                     sets: Sequence[Mapping[str, Any]] = ()) -> None:
    """The citations as one row of pills (one element, not one button each): each set of
    cells first, as one pill, then the single cells; a click opens it in its table and
    leaves no pill selected, so the same one opens again."""
    key = f"cite_{run_id}"

    def clicked() -> None:
        st.session_state[OPEN_CITATION_KEY] = (run_id, st.session_state.get(key))
        st.session_state[key] = None

    # Option i < len(sets) is set i, the others the single cells after them.
    labels = [set_label(s, cited_table(workspace, s)) for s in sets]
    labels += evidence_labels(evidence[:50], workspace.table_places())
    icons = [":material/table_view:"] * len(sets) + [
        ":material/article:" if e.get("kind") == "text" else ":material/table_view:"
        for e in evidence[:50]]
    heading = ("Cited cells: click one to see it in its table" if not any(
        e.get("kind") == "text" for e in evidence) else
        "Cited cells and passages: click one to see it where it is")
    st.pills(heading, list(range(len(labels))), key=key,
             on_change=clicked, format_func=lambda i: icons[i] + " " + md_escape(labels[i]))
    opened = st.session_state.get(OPEN_CITATION_KEY)
    if opened is not None and opened[0] == run_id:
        del st.session_state[OPEN_CITATION_KEY]
        index = opened[1]
        if index is not None and index < len(sets):
            show_cited_set(workspace, sets[index])
        elif index is not None:
            show_citation(workspace, evidence, index - len(sets), sets)


@st.dialog("Cited source", width="large")
@one_run_at_a_time
def show_cited_set(workspace: Workspace, evidence_set: Mapping[str, Any]) -> None:
    """The source table of a set of cited cells, every cell of the set on screen highlighted."""
    cited_view.cited_set(workspace, evidence_set, IN_THIS_CHAT)


@st.dialog("Cited source", width="large")
@one_run_at_a_time
def show_citation(workspace: Workspace, evidence: Sequence[Mapping[str, Any]],
                  index: int, sets: Sequence[Mapping[str, Any]] = ()) -> None:
    """The source table of a cited cell (the image it was read from too), cited cells
    highlighted (those of its sets too); or the cited passage."""
    cited_view.cited_cell(workspace, evidence, index, sets, IN_THIS_CHAT, image=True)


IN_THIS_CHAT = "this chat's workspace"


# --- the workspace panel ----------------------------------------------------------------------

def show_workspace(workspace: Workspace | None) -> None:
    with st.container(horizontal=True, vertical_alignment="center",
                      horizontal_alignment="distribute"):
        st.markdown("#### Workspace", width="content")
        st.segmented_control("Workspace width", list(PANEL_LAYOUTS), default=DEFAULT_PANEL,
                             key="panel", label_visibility="collapsed",
                             help="How much of the page the workspace panel takes: beside "
                                  "the chat, half of it, or the whole page (the chat and the "
                                  "workspace then each have a tab).")
    for message in st.session_state.pop("workspace_errors", []):
        st.error(message, icon=":material/error:")
    sources = workspace.sources() if workspace is not None else []
    if workspace is None or not sources:
        st.info("Upload a report in the sidebar (or attach it to a chat message): an Excel "
                "workbook, CSV, HTML page, Markdown, Word, PDF or text file. Each sheet and "
                "table is shown here as it was read, merged cells and header decisions "
                "included; a document's text as its passages.")
        return
    tables = workspace.tables()
    for source in sources:
        with st.container(border=True):
            with st.container(horizontal=True, vertical_alignment="center",
                              horizontal_alignment="distribute"):
                st.subheader(source.name, width="content", anchor=False)
                remove = st.button("Remove", key=f"remove_{source.sha256}",
                                   icon=":material/delete:", type="tertiary",
                                   help="Delete this file and everything read from it")
            if remove:
                st.session_state[REMOVING_KEY] = source.sha256
            if st.session_state.get(REMOVING_KEY) == source.sha256:
                confirm_removal(workspace, source.sha256, source.name)
            grids = workspace.grids(source.sha256)
            chunks = workspace.chunks(source.sha256)
            labels = [g.sheet for g in grids] + (["Text"] if chunks else [])
            if not labels:
                st.caption("Nothing was read from this file.")
                continue
            tabs = st.tabs(labels)
            if chunks:
                with tabs[-1]:
                    document_text(chunks)
            for tab, info in zip(tabs, grids, strict=False):
                with tab:
                    grid = workspace.load_window(info.id, drawn_window(None))
                    filled, merged, first = workspace.grid_counts(info.id)
                    st.caption(f"{info.n_rows} rows x {info.n_cols} columns, "
                               f"{filled:,} filled cells, {merged} merged ranges"
                               + (f": {', '.join(first)}" + (" ..." if merged > len(first)
                                                              else "") if merged else ""))
                    for warning in info.warnings:  # readers write them as clauses
                        sentence = warning[:1].upper() + warning[1:].rstrip(".") + "."
                        st.warning(md_escape(sentence), icon=":material/warning:")
                    on_sheet = [t for t in tables if t.grid == info.id]
                    st.html(grid_html(grid, header=header_refs(grid, on_sheet)))
                    if info.kind == "image":
                        st.caption(md_escape(ocr_caption(grid)))
                    if info.n_rows > SHOWN_ROWS or info.n_cols > SHOWN_COLS:
                        st.caption(f"Showing the first {SHOWN_ROWS} rows and {SHOWN_COLS} "
                                   "columns.")
                    for table in on_sheet:
                        table_structure(workspace, table)


def document_text(chunks: Sequence[Any]) -> None:
    """A document's text as it was read: its passages with where each is."""
    st.caption(f"{len(chunks)} passage{'s' * (len(chunks) != 1)} of text, searched and cited "
               "with the tables."
               + (f" Showing the first {SHOWN_PASSAGES}." if len(chunks) > SHOWN_PASSAGES
                  else ""))
    for stored in chunks[:SHOWN_PASSAGES]:
        st.caption(md_escape(stored.title()))
        st.html(passage_html(stored.text, 0, 0))


def confirm_removal(workspace: Workspace, sha256: str, name: str) -> None:
    """Ask before deleting a file: one click on Remove lost a file and its tables."""
    st.warning(f"Remove {md_escape(name)} and the tables read from it from this chat? Answers "
               "given already keep their text and the values they cite, but the cited cells "
               "will no longer be shown in their table.",
               icon=":material/delete:")
    with st.container(horizontal=True):
        if st.button("Remove it", key=f"remove_yes_{sha256}", type="primary"):
            workspace.remove_source(sha256)
            note_use(workspace)
            st.session_state.pop(REMOVING_KEY, None)
            st.rerun()
        if st.button("Keep it", key=f"remove_no_{sha256}"):
            st.session_state.pop(REMOVING_KEY, None)
            st.rerun()


def table_structure(workspace: Workspace, table: TableInfo) -> None:
    """How a table's headers were read (decisions, both path trees) and a way to correct them."""
    tid, version = table.id, table.version
    n_cols = len(table.columns)
    label = (f"Table {table.k + 1}: {table.region}, {n_cols} data column"
             f"{'s' * (n_cols != 1)}, {table.n_rows} data row{'s' * (table.n_rows != 1)}")
    with st.expander(label, icon=":material/account_tree:"):
        st.markdown(md_escape(describe_decisions(table)))
        left, right = st.columns(2)
        with left:
            st.markdown("**Column header tree**")
            st.html(tree_html(table.tree.columns, "no column headers"))
        with right:
            st.markdown("**Row header tree**")
            st.html(tree_html(table.tree.rows, "no row headers"))
        paths = column_path_names(table)
        st.caption("Column paths: " + md_escape(" | ".join(paths) if paths else "none"))
        rows = row_path_names(table)
        st.caption("Row paths: " + md_escape(" | ".join(rows[:30]) if rows else "none")
                   + (f" (and {len(rows) - 30} more)" if len(rows) > 30 else ""))
        for note in [*table.notes, table.wide_note]:
            if note:
                st.caption(md_escape(str(note)))
        with st.form(f"headers_{tid}_{version}", border=False):
            st.markdown("**Correct the headers**")
            row_choice = st.multiselect(
                "Header rows", row_options(table),
                default=[r for r in table.header_rows if r in row_options(table)],
                key=f"hrows_{tid}_{version}")
            letters = column_options(table)
            col_choice = st.multiselect(
                "Header columns", letters,
                default=[x for x in letters if column_numbers([x])[0] in
                         set(table.header_cols)],
                key=f"hcols_{tid}_{version}")
            with st.container(horizontal=True, gap="small"):  # wraps; never truncates
                apply = st.form_submit_button("Apply", icon=":material/check:")
                reset = st.form_submit_button("Use detected headers",
                                              icon=":material/restart_alt:")
        if apply or reset:
            rows_arg = None if reset else sorted(row_choice)
            cols_arg = None if reset else column_numbers(col_choice)
            try:
                workspace.restructure(table.source, table.sheet, table.k, rows_arg, cols_arg,
                                      limits=settings().limits())
            except Exception as exc:
                log.exception("restructure of %s failed", tid)
                st.session_state.setdefault("workspace_errors", []).append(
                    f"The headers of {table_place(table.file_name, table.sheet)}, could not "
                    f"be changed: {plain_error(exc)}")
            st.rerun()


def logged_in() -> bool:
    """With login on, make sure someone is logged in (the login page otherwise) and knows
    who they are; True when the page may go on. Without login, True."""
    match login.setting():
        case "off":
            return True
        case "unreadable":
            login.unreadable_page()
            return False
    if login.missing_claims():
        login.missing_claims_page()
        return False
    if login.current_user() is None:
        login.login_page()
        return False
    return True


def requested_chat_is_theirs() -> bool:
    """Whether the chat the URL names may be opened by this user (always without login). A
    chat of someone else's and a chat that does not exist answer alike (`not_yours_page`)."""
    session = st.query_params.get("session", "")
    return not _SESSION_ID.fullmatch(session) or may_open(session)


@one_run_at_a_time
def main() -> None:
    try:
        app_database()
    except DatabaseUnavailable:  # PostgreSQL (TABLELENS_DATABASE_URL) down or misnamed
        log.exception("the app's database cannot be reached")
        st.error(DATABASE_DOWN_MESSAGE, icon=":material/cloud_off:")
        return
    if not logged_in():
        return
    tidied(settings().data_dir)
    if "share" in st.query_params:  # a share link: the snapshot, read-only, and nothing else
        shared_chat()
        return
    delete_pending_chat()
    if not requested_chat_is_theirs():
        login.not_yours_page(_new_chat)
        return
    header()
    user = current_user()
    if user is None:
        browser_id.current()  # sets this browser's cookie on its first visit
        if exposure.beyond_loopback(st.get_option("server.address")):
            st.warning(exposure.BANNER, icon=":material/public:")
    workspace = current_workspace()
    record_opened()
    if user is not None:
        login.account_panel()
    sidebar(workspace)
    ratio = PANEL_LAYOUTS.get(st.session_state.get("panel") or "", PANEL_LAYOUTS[DEFAULT_PANEL])
    if ratio is None:  # full width: the chat and the workspace each get the whole page
        chat_col, workspace_col = st.tabs(["Chat", "Workspace"])
    else:
        st.html(side_by_side_css(ratio))
        chat_col, workspace_col = st.container(key=SIDE_BY_SIDE).columns(list(ratio),
                                                                          gap="large")
    for column, panel in ((chat_col, lambda: show_chat(workspace)),
                          (workspace_col, lambda: show_workspace(workspace))):
        with column:
            try:
                panel()
            except Exception:
                log.exception("the app failed")
                st.error("Something went wrong here. The details are in the server log; "
                         "reload the page to continue.", icon=":material/error:")


try:
    main()
except Exception:  # the last resort: a plain message, never a traceback on screen
    log.exception("the app failed")
    st.error("Something went wrong. The details are in the server log; reload the page to "
             "continue.", icon=":material/error:")
