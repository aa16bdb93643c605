"""End to end in a real headless Chromium, with login: a local OpenID Connect provider
(oidc-provider-mock, on a free port in this process) and the app served with secrets that
point at it. User A logs in, asks a question, and logs out; user B logs in and does not see
A's chat, and A's chat URL shows B the not-found page. One app server, one browser profile,
as two people taking turns at one machine.
"""

from __future__ import annotations

import re

import pytest

from bench.browser_harness import (
    ALERT,
    APP,
    CHAT_INPUT,
    CHAT_MESSAGE,
    SIDEBAR,
    ask,
    chrome,
    click,
    free_port,
    page_text,
    serve,
    unavailable,
    visible,
    wait_for,
)
from tablelens import login

QUESTION = "Total rent for Q2?"  # no file: refused at once, but a chat of A's own
USERS = {"ann": {"name": "Ann Example", "email": "ann@example.com"},
         "bob": {"name": "Bob Example", "email": "bob@example.com"}}

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))]


@pytest.fixture
def provider(monkeypatch):
    """The identity provider's address, served until the test ends."""
    from oidc_provider_mock import User, run_server_in_thread

    # The provider is served over plain HTTP on this machine; Authlib refuses that unless told.
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")
    with run_server_in_thread(user_claims=[User(sub=sub, claims=claims)
                                          for sub, claims in USERS.items()]
                              ) as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture
def login_app(tmp_path, provider):
    """The app served with login settings pointing at `provider`."""
    port = free_port()
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f"""[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "a-test-cookie-secret-that-is-long-enough"
client_id = "tablelens-test"
client_secret = "tablelens-test-secret"
server_metadata_url = "{provider}/.well-known/openid-configuration"
""", encoding="utf-8")
    with serve(APP, tmp_path / "data", tmp_path / "server.log", port=port,
               streamlit_args=["--secrets.files", str(secrets)]) as url:
        yield url


def log_in(drv, url: str, sub: str, shots) -> None:
    """From the login page, through the provider's form, back to the app as `sub`."""
    drv.get(url)
    click(drv, lambda d: next(iter(visible(d, "button", "Log in")), None), "Log in",
          shots=shots)
    # The provider's page: a button per known user (its subject).
    click(drv, lambda d: next(iter(d.find_elements(
        "css selector", f'button[name="sub"][value="{sub}"]')), None), f"the user {sub}",
        shots=shots)
    wait_for(drv, lambda d: visible(d, SIDEBAR, f"Logged in as {USERS[sub]['name']}"),
             f"{sub} logged in", shots=shots)


def log_out(drv, shots) -> None:
    """Log out of the app, then of the provider (its end-session page, which Streamlit
    sends the browser to), and back to the app's login page."""
    click(drv, lambda d: next(iter(visible(d, f"{SIDEBAR} button", "Log out")), None),
          "Log out", shots=shots)
    click(drv, lambda d: next(iter(visible(d, "button", "End session")), None),
          "the provider's End session", shots=shots)
    wait_for(drv, lambda d: visible(d, "button", "Log in"), "the login page again",
             shots=shots)


def listed(drv, title: str) -> bool:
    """Whether the sidebar's list of chats has a chat of this title."""
    return any(title in b.text for b in visible(drv, f"{SIDEBAR} button"))


def test_a_user_logs_in_and_another_cannot_see_or_open_their_chat(login_app, tmp_path,
                                                                  shots):
    with chrome(tmp_path / "profile") as drv:
        drv.get(login_app)
        wait_for(drv, lambda d: visible(d, "button", "Log in"), "the login page",
                 shots=shots)
        assert not visible(drv, CHAT_INPUT) and login.LOGIN_NOTE in page_text(drv)

        log_in(drv, login_app, "ann", shots)
        ask(drv, QUESTION, shots)
        wait_for(drv, lambda d: visible(d, CHAT_MESSAGE, "no reports in this chat"),
                 "the refusal of a question without files", shots=shots)
        wait_for(drv, lambda d: "session=" in d.current_url, "the chat's URL", shots=shots)
        chat_url = drv.current_url
        wait_for(drv, lambda d: listed(d, QUESTION), "A's chat in A's list", shots=shots)
        log_out(drv, shots)

        log_in(drv, login_app, "bob", shots)
        wait_for(drv, lambda d: visible(d, SIDEBAR, "Your chats will be listed here"),
                 "B's empty list", shots=shots)
        assert not listed(drv, QUESTION)
        drv.get(chat_url)
        wait_for(drv, lambda d: visible(d, ALERT, login.NOT_YOURS_MESSAGE[:40]),
                 "the not-found page", shots=shots)
        assert not visible(drv, CHAT_INPUT)
        assert QUESTION not in page_text(drv) and "Ann" not in page_text(drv)
        drv.save_screenshot(str(shots / "not-yours.png"))
        assert re.search(r"session=[A-Za-z0-9_-]{22}", chat_url)
