"""Login with OpenID Connect through Streamlit's own `st.login`, and the pages around it.

Login is on when the app's secrets (`.streamlit/secrets.toml`, or the files named by
Streamlit's `secrets.files` option) have an `[auth]` section, which is how Streamlit itself
decides that `st.user` can be logged in; the section's provider settings are Streamlit's
(README, "Run it for your team"). Then every page asks for a login first, and the user is
`Owner(iss, sub)` from their ID token's claims: the email and the name are shown, never used
to decide what is theirs, since both can change.

A secrets file that exists but cannot be read is not taken as "no login": the app would
otherwise open every chat to anyone because of a typo. It shows `BROKEN_MESSAGE` instead.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from typing import Literal

import streamlit as st

from storage.chat_index import Owner
from tablelens.chat_view import md_escape

log = logging.getLogger(__name__)

LoginSetting = Literal["on", "off", "unreadable"]

LOGIN_NOTE = ("Log in to see your chats. Each chat belongs to the person who made it: nobody "
              "else can list or open it, unless its owner makes a share link.")
BROKEN_MESSAGE = ("This server's login settings could not be read, so no chat is shown. The "
                  "person who runs it should check the secrets file (.streamlit/secrets.toml) "
                  "and the server log.")
MISSING_CLAIMS_MESSAGE = ("Your login did not say who you are (the identity provider sent no "
                          "issuer or subject), so no chat can be shown. Log out and try again, "
                          "or ask the person who runs this server to check its login settings.")
NOT_YOURS_MESSAGE = ("This chat is not among your chats. It may have been deleted, or it "
                     "belongs to someone else: a chat opens only for the person who made it, "
                     "or through a share link they make.")


def setting() -> LoginSetting:
    """Whether login is on: "on" with an `[auth]` section in the secrets, "off" without one
    (or with no secrets file), "unreadable" when a secrets file exists but does not parse."""
    try:
        return "on" if "auth" in st.secrets else "off"
    except FileNotFoundError:  # Streamlit's "no secrets": no file, or a file it cannot parse
        files = st.get_option("secrets.files") or []
        if any(os.path.exists(path) for path in files):
            log.exception("the secrets file exists but could not be read")
            return "unreadable"
        return "off"


def current_user() -> Owner | None:
    """The logged-in user, or None when nobody is logged in (or the ID token named no
    issuer or subject, which `missing_claims` tells apart)."""
    if not st.user.get("is_logged_in"):
        return None
    issuer, subject = st.user.get("iss"), st.user.get("sub")
    if not isinstance(issuer, str) or not isinstance(subject, str) or not issuer or not subject:
        return None
    return Owner(issuer, subject)


def missing_claims() -> bool:
    """Logged in, but without the claims that say who the user is."""
    return bool(st.user.get("is_logged_in")) and current_user() is None


def providers() -> list[str | None]:
    """The identity providers to offer: the named sections under `[auth]` (`[auth.google]`),
    else the one provider configured in `[auth]` itself (None)."""
    section = st.secrets.get("auth") or {}
    named = [name for name, value in section.items() if isinstance(value, Mapping)]
    return list(named) or [None]


def login_page() -> None:
    """What a visitor who is not logged in sees: what logging in gives, and the button."""
    st.title("Tablelens")
    st.markdown(LOGIN_NOTE)
    for provider in providers():
        label = "Log in" if provider is None else f"Log in with {provider.title()}"
        if st.button(label, icon=":material/login:", type="primary",
                     key=f"login_{provider or 'default'}"):
            if provider is None:
                st.login()
            else:
                st.login(provider)


def unreadable_page() -> None:
    st.title("Tablelens")
    st.error(BROKEN_MESSAGE, icon=":material/lock:")


def missing_claims_page() -> None:
    st.title("Tablelens")
    st.error(MISSING_CLAIMS_MESSAGE, icon=":material/person_off:")
    st.button("Log out", icon=":material/logout:", on_click=st.logout, key="logout_claims")


def not_yours_page(on_leave: Callable[[], None]) -> None:
    """The one page a chat URL that is not the user's gets, whether the chat exists or not,
    so that ids cannot be probed; a button leads back to the user's own chats."""
    st.title("Tablelens")
    st.info(NOT_YOURS_MESSAGE, icon=":material/lock:")
    st.button("Go to my chats", icon=":material/arrow_back:", on_click=on_leave,
              key="not_yours_leave")


def account_panel() -> None:
    """Who is logged in, in the sidebar, and the button that logs out."""
    who = next((str(st.user.get(claim)) for claim in ("name", "email", "preferred_username")
                if st.user.get(claim)), "you")
    email = st.user.get("email")
    detail = f" ({email})" if email and str(email) != who else ""
    with st.sidebar.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.caption(f"Logged in as {md_escape(who + detail)}")
        st.button("Log out", icon=":material/logout:", on_click=st.logout, type="tertiary",
                  key="logout")

