"""The page a share link opens: a chat's snapshot, read-only.

The viewer sees every turn: the question, its step timeline (text, SQL, retrieved items,
grounded cells, each step's table), the step tables to sort and download, the answer and its
cited cells, each of which opens in its source table. There is no chat box, no uploader and
no sidebar (no list of chats, no rename or delete), and no server path: the page draws only
the snapshot (`tablelens/sharing.py`), whose transcript holds no LLM prompt. The original
files are offered only when the owner allowed it.

The same page, `unavailable_page`, answers a link revoked, expired, mistyped or unknown: one
message and nothing else, so the page cannot tell a viewer which one it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from storage.share_links import ShareLink
from storage.workspace import Workspace
from tablelens import chat_store, cited_view
from tablelens.chat_view import (
    CONFIDENCE_COLORS,
    INTERRUPTED_MESSAGE,
    NO_FILES_MESSAGE,
    answer_message,
    answer_text,
    close_steps,
    confidence_text,
    evidence_labels,
    group_steps,
    md_escape,
    model_failure_note,
    outcome_of,
    usage_line,
)
from tablelens.chats import when_text
from tablelens.citations import (
    cited_table,
    set_label,
)
from tablelens.exports import table_frame
from tablelens.literal_md import md_literal
from tablelens.table_downloads import download_buttons
from tablelens.table_view import table_view
from tablelens.turn_html import steps_html

log = logging.getLogger(__name__)

UNAVAILABLE_MESSAGE = ("This share link does not open a chat. It may have been revoked or "
                       "have expired, or it was copied incompletely. Ask the person who shared "
                       "it for a new link.")
READ_ONLY_NOTE = ("A read-only copy of this chat as it was {when}. Open a step to see its SQL "
                  "and tables, click a cited cell to see it in its source table, and download "
                  "any table. Questions cannot be asked here: make your own copy to go on.")
FORK_HELP = ("Copy this chat (its files, tables and answers so far) into a new chat of your "
             "own, where you can ask follow-up questions. This shared chat stays as it is.")
NO_FILES_VIEWER_MESSAGE = ("This question was asked before the chat had any reports, so it was "
                           "not answered.")
"""What a viewer reads instead of the owner's "Upload one in the sidebar" (`NO_FILES_MESSAGE`),
which a viewer cannot do."""
FILE_GONE_MESSAGE = ("This file can no longer be downloaded: the link was revoked or has "
                     "expired. Ask the person who shared it for a new link.")
OPEN_KEY = "share_open_citation"  # (run id, option) of the citation clicked
FILE_ASKED_KEY = "share_file_asked"  # the sha256 of the original file the viewer asked for


def unavailable_page() -> None:
    """The one page every link that opens nothing gets."""
    st.title("Tablelens")
    st.info(UNAVAILABLE_MESSAGE, icon=":material/link_off:")


def shared_page(workspace: Workspace, link: ShareLink, on_fork: Callable[[], None]) -> None:
    """The snapshot `workspace` of the chat `link` shares, read-only, with a button that
    forks it (`on_fork`). The caller has just checked that the link still opens: every rerun
    does, so a click on a page left open after a revoke gets the unavailable page."""
    # The title is the owner's words (a question): as Markdown it could be a link elsewhere.
    st.title(md_literal(link.title), anchor=False)
    st.caption(md_escape(READ_ONLY_NOTE.format(when=when_text(link.created))))
    st.button("Make my own copy", icon=":material/fork_right:", on_click=on_fork,
              type="primary", key="fork_shared_chat", help=FORK_HELP)
    for message in st.session_state.pop("share_errors", []):
        st.error(message, icon=":material/error:")
    if link.allow_files:
        _isolated("original files", lambda: original_files(workspace))
    places = workspace.table_places()
    for turn in chat_store.turns(workspace):
        _isolated("turn", lambda turn=turn: shared_turn(workspace, turn, places))


def original_files(workspace: Workspace) -> None:
    """The original files, each in two clicks: the first reruns the page, which checks the
    link still opens, and reads the file; the second saves it. A download read on click
    instead (a deferred `st.download_button`) would fail with Streamlit's own "Failed to
    generate file" once the link is revoked and its snapshot removed, with no word why."""
    sources = workspace.sources()
    if not sources:
        return
    with st.expander(f"Original files ({len(sources)})", icon=":material/folder_open:",
                     expanded=st.session_state.get(FILE_ASKED_KEY) is not None):
        st.caption("The owner of this chat allowed its files to be downloaded.")
        asked = st.session_state.get(FILE_ASKED_KEY)
        for source in sources:
            if source.sha256 != asked:
                st.button(source.name, icon=":material/download:", type="tertiary",
                          key=f"share_file_{source.sha256}",
                          on_click=_ask_file, args=(source.sha256,))
                continue
            try:
                data = workspace.file_path(source.sha256).read_bytes()
            except OSError:  # removed between the link's check and this read
                st.caption(f":material/link_off: {md_escape(FILE_GONE_MESSAGE)}")
                continue
            st.download_button(f"Save {source.name}", data=data, file_name=source.name,
                               icon=":material/save:", key=f"share_save_{source.sha256}",
                               on_click="ignore", type="primary")


def _ask_file(sha256: str) -> None:
    st.session_state[FILE_ASKED_KEY] = sha256


def _isolated(what: str, draw: Callable[[], Any]) -> None:
    """One part that fails becomes a short notice; the rest of the chat still shows."""
    slot = st.empty()
    try:
        with slot.container():
            draw()
    except Exception:
        log.exception("could not show the %s of a shared chat", what)
        slot.caption(f":material/warning: The {what} could not be shown here.")


def shared_turn(workspace: Workspace, turn: chat_store.Turn,
                places: Mapping[str, tuple[str, str]]) -> None:
    if turn.is_upload:
        with st.chat_message("assistant", avatar=":material/upload_file:"):
            for item in turn.uploads:
                st.caption(md_escape(str(item.get("message", ""))))
        return
    with st.chat_message("user"):
        st.text(str((turn.question or {}).get("text", "")))  # as typed: no Markdown read
    with st.chat_message("assistant"):
        outcome = outcome_of(turn.answer, turn.error, active=False)
        steps = close_steps(group_steps(turn.events), outcome)
        if steps:
            st.html(steps_html(steps, places))
        tabled = [s for s in steps if s.table and s.state != "running"]
        if tabled:
            with st.expander(f"{len(tabled)} intermediate table{'s' * (len(tabled) != 1)}: "
                             "sort and download", icon=":material/table_view:"):
                for step in tabled:
                    st.markdown(f"**{md_escape(step.label)}**")
                    _isolated("intermediate table", lambda step=step: step_table(
                        workspace, f"share_{turn.run_id}_{step.seq}", step.table or {}))
        if outcome == "failed" and turn.error == NO_FILES_MESSAGE:
            st.info(NO_FILES_VIEWER_MESSAGE, icon=":material/info:")
        elif outcome == "failed":
            st.error(turn.error or "The question could not be answered.",
                     icon=":material/error:")
        elif outcome == "interrupted":
            st.warning(INTERRUPTED_MESSAGE, icon=":material/warning:")
        elif turn.answer is not None:
            shared_answer(workspace, turn.run_id, turn.answer, places)


def step_table(workspace: Workspace, key: str, table: Mapping[str, Any]) -> None:
    """A step table, its whole stored rows downloadable as CSV or Excel."""
    view = table_view(table)
    st.caption(md_escape(view.caption()))
    st.dataframe(table_frame(view.columns, view.rows), hide_index=True)
    download_buttons(workspace, key, table, view)


def shared_answer(workspace: Workspace, run_id: str, answer: Mapping[str, Any],
                  places: Mapping[str, tuple[str, str]]) -> None:
    message = answer_message(answer)
    usage = usage_line(answer)
    if message is not None:
        st.warning(message, icon=":material/help:")
    else:
        color = CONFIDENCE_COLORS.get(str(answer.get("confidence_label", "low")), "gray")
        st.markdown(f"### {md_escape(answer_text(answer))}\n\n"
                    f":{color}-badge[{md_escape(confidence_text(answer))}]"
                    + (f" :gray[{md_escape(usage)}]" if usage else ""))
        if failure := model_failure_note(answer):
            st.warning(md_escape(failure), icon=":material/cloud_off:")
    evidence = list(answer.get("evidence") or [])[:50]
    sets = list(answer.get("evidence_sets") or [])
    if evidence or sets:
        _isolated("list of cited cells",
                  lambda: citations(workspace, run_id, evidence, sets, places))


def citations(workspace: Workspace, run_id: str, evidence: Sequence[Mapping[str, Any]],
              sets: Sequence[Mapping[str, Any]], places: Mapping[str, tuple[str, str]]
              ) -> None:
    """The cited cells as pills (sets first), labelled as the owner's chat labels them; a
    click opens the cell in its table."""
    key = f"share_cite_{run_id}"

    def clicked() -> None:
        st.session_state[OPEN_KEY] = (run_id, st.session_state.get(key))
        st.session_state[key] = None

    labels = [set_label(s, cited_table(workspace, s)) for s in sets]
    labels += evidence_labels(evidence, places)
    icons = [":material/table_view:"] * len(sets) + [
        ":material/article:" if e.get("kind") == "text" else ":material/table_view:"
        for e in evidence]
    st.pills("Cited cells: click one to see it in its table", list(range(len(labels))),
             key=key, on_change=clicked,
             format_func=lambda i: icons[i] + " " + md_escape(labels[i]))
    opened = st.session_state.get(OPEN_KEY)
    if opened is not None and opened[0] == run_id:
        del st.session_state[OPEN_KEY]
        if opened[1] is not None:
            cited_source(workspace, evidence, sets, int(opened[1]))


@st.dialog("Cited source", width="large")
def cited_source(workspace: Workspace, evidence: Sequence[Mapping[str, Any]],
                 sets: Sequence[Mapping[str, Any]], index: int) -> None:
    """The source table of a cited cell or set, the cited cells highlighted; or the cited
    passage of a document. A screenshot's image is not shown: it is an original file, which
    the owner may not have shared."""
    if index < len(sets):
        cited_view.cited_set(workspace, sets[index], IN_THIS_SHARED_CHAT)
    else:
        cited_view.cited_cell(workspace, evidence, index - len(sets), sets,
                              IN_THIS_SHARED_CHAT, image=False)


IN_THIS_SHARED_CHAT = "this shared chat"
