"""A random id for this browser, kept in a long-lived cookie: without login, the list of chats
shows the chats this browser opened (`ChatIndex.remember`), so a stranger on the same server
does not see them listed. It is a filter, not a lock: anyone with a chat's URL still gets in,
and the server's banner says so (`tablelens/exposure.py`).

Streamlit 1.67 reads cookies (`st.context.cookies`, those sent when the page connected) but
has no call that sets one, so a small inline component (`st.components.v2`) does: it reads
`document.cookie`, writes the id the server proposed when there is none (SameSite=Lax, Secure
over HTTPS, about 400 days, the most Chrome keeps), and returns the id to the script on its
next rerun. Later visits send the cookie with the page's connection, so the component is
mounted only on a browser's first visit (or after its cookies were cleared). The id never
goes into the URL, and the index stores only its SHA-256. Streamlit's XSRF protection is
untouched: it keys its own cookie.
"""

from __future__ import annotations

import re
import secrets

import streamlit as st

COOKIE = "tablelens_browser"
MAX_AGE_S = 400 * 24 * 3600
BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{22}")
"""`secrets.token_urlsafe(16)`: 128 random bits. A cookie of any other shape is replaced."""
KEY = "_browser_id"  # st.session_state: this browser's id, once known
PROPOSED_KEY = "_browser_id_proposed"  # the id offered to the component, the same each rerun

_JS = """
export default function(component) {
  const { data, setStateValue } = component;
  const prefix = data.name + "=";
  const found = document.cookie.split("; ").find((c) => c.startsWith(prefix));
  let id = found ? found.slice(prefix.length) : "";
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) {
    id = data.proposed;
    const secure = window.location.protocol === "https:" ? "; Secure" : "";
    document.cookie = `${prefix}${id}; Max-Age=${data.max_age}; Path=/; SameSite=Lax${secure}`;
  }
  setStateValue("id", id);
}
"""
_cookie_writer = st.components.v2.component("tablelens_browser_cookie", js=_JS)


def known() -> str | None:
    """This browser's id if this browser session has learnt it (`current`), else None."""
    known = st.session_state.get(KEY)
    return known if isinstance(known, str) and BROWSER_ID.fullmatch(known) else None


def current() -> str | None:
    """This browser's id; None on the first run of a first visit, until the component has
    set the cookie and answered (a rerun later)."""
    if (learnt := known()) is not None:
        return learnt
    sent = st.context.cookies.get(COOKIE)
    if isinstance(sent, str) and BROWSER_ID.fullmatch(sent):
        st.session_state[KEY] = sent
        return sent
    proposed = st.session_state.setdefault(PROPOSED_KEY, secrets.token_urlsafe(16))
    result = _cookie_writer(key="browser_cookie", data={
        "name": COOKIE, "proposed": proposed, "max_age": MAX_AGE_S},
        on_id_change=lambda: None, height=0)
    answered = result.get("id") if result is not None else None
    if isinstance(answered, str) and BROWSER_ID.fullmatch(answered):
        st.session_state[KEY] = answered
        return answered
    return None
