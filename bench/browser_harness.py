"""Drive the served app in a real headless Chromium: shared by tests/test_browser.py and
bench/browser_latency.py.

Starts `streamlit run` on a free port with a temporary data directory, opens Debian's Chromium
through Selenium, and offers waits that re-find their elements: Streamlit re-renders elements on
every rerun, so an element found once may be stale (or not yet filled) a moment later. Every
check of page content goes through `wait_for`, never a single read after a click.

No pytest here (the benchmark runs without it): a wait that times out raises `WaitTimeout`, an
AssertionError, so a test fails with its message.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    from selenium import webdriver
    from selenium.common.exceptions import (
        ElementClickInterceptedException,
        NoSuchElementException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # unavailable() says so, and nothing below runs
    webdriver = None

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "streamlit_app.py"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT_S = 60

CHAT_INPUT = '[data-testid="stChatInput"] textarea'
CHAT_MESSAGE = '[data-testid="stChatMessage"]'
EXPANDER = '[data-testid="stExpander"]'
STEP_ICON = '[data-testid="stExpanderStepIcon"]'  # st.status(type="step") draws it
ALERT = '[data-testid="stAlert"]'
UPLOADER = '[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]'


class AppDidNotStart(RuntimeError):
    """The Streamlit server exited or did not answer its health check in time."""


class WaitTimeout(AssertionError):
    """Something the page should show did not appear in time."""


def unavailable() -> str | None:
    """Why the browser cannot run here (None when it can)."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        return ("needs Debian's chromium and chromedriver at /usr/bin "
                "(apt install chromium chromium-driver)")
    if webdriver is None:
        return "needs selenium (pip install -e '.[test]')"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(script: Path, data_dir: Path, log_path: Path, *, port: int | None = None,
          streamlit_args: Sequence[str] = ()) -> Iterator[str]:
    """Run `streamlit run script` until the block ends; yield its URL once healthy. `port`
    when the caller needs it first (a login's redirect URI names it); `streamlit_args` are
    more of Streamlit's flags (`--secrets.files`)."""
    port = port or free_port()
    env = {**os.environ, "TABLELENS_DATA_DIR": str(data_dir)}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false", *streamlit_args],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AppDidNotStart("the app did not start:\n"
                                     + log_path.read_text(errors="replace"))
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextmanager
def chrome(profile_dir: Path, performance_log: bool = False) -> Iterator[Any]:
    """A headless Chromium that stays on this machine; quit when the block ends."""

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                "--disable-dev-shm-usage", "--window-size=1500,1250",
                f"--user-data-dir={profile_dir}"):
        options.add_argument(arg)
    options.binary_location = str(CHROMIUM)
    if performance_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    drv = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield drv
    finally:
        drv.quit()


def wait_for(drv, condition: Callable[[Any], Any], what: str, timeout: float = WAIT_S,
             shots: Path | None = None):
    """Wait until condition(drv) is truthy and return its value; raise WaitTimeout naming
    `what` (with a screenshot and the page's HTML in `shots`) if it never is.

    The condition must find its elements itself on each call: a stale element (Streamlit
    re-rendered it) only means "not yet", and so does one that vanished in between.
    """

    def check(d):
        try:
            return condition(d)
        except (StaleElementReferenceException, NoSuchElementException):
            return False

    try:
        return WebDriverWait(drv, timeout, poll_frequency=0.2).until(check)
    except Exception as exc:
        if shots is not None:
            drv.save_screenshot(str(shots / f"failed-{what.replace(' ', '-')[:40]}.png"))
            (shots / "failed-page.html").write_text(drv.page_source)
        raise WaitTimeout(f"{what} did not appear within {timeout} s: "
                          f"{type(exc).__name__}") from None


def wait_value(drv, get: Callable[[Any], Any], ok: Callable[[Any], bool], what: str,
               timeout: float = WAIT_S, shots: Path | None = None):
    """Wait until ok(get(drv)) holds and return that value; the timeout names the last value
    seen, so a failure shows what the page had instead."""
    seen: list[Any] = [None]

    def check(d):
        seen[0] = get(d)
        return ok(seen[0])

    try:
        wait_for(drv, check, what, timeout=timeout, shots=shots)
    except WaitTimeout as exc:
        raise WaitTimeout(f"{exc}; last seen: {seen[0]!r}") from None
    return seen[0]


def visible(drv, css: str, text: str | None = None) -> list[Any]:
    """The displayed elements matching css (and containing text), found now."""

    return [e for e in drv.find_elements(By.CSS_SELECTOR, css)
            if e.is_displayed() and (text is None or text in e.text)]


def page_text(drv) -> str:

    return drv.find_element(By.TAG_NAME, "body").text


def step_expanders(drv) -> list[Any]:
    """The step timeline's expanders (st.status(type="step") renders stExpanderStepIcon)."""

    return [e for e in drv.find_elements(By.CSS_SELECTOR, EXPANDER)
            if e.find_elements(By.CSS_SELECTOR, STEP_ICON)]


def scroll_to(drv, element) -> None:
    """Scroll an element to the middle of the view at once (no smooth scrolling, which would
    move it under the pointer while Selenium clicks)."""
    drv.execute_script(
        "arguments[0].scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});",
        element)


def click(drv, find: Callable[[Any], Any], what: str, shots: Path | None = None) -> None:
    """Click the element find(drv) returns, finding it again if it went stale meanwhile."""

    def clicked(d):
        element = find(d)
        if element is None:
            return False
        scroll_to(d, element)
        try:
            element.click()
        except ElementClickInterceptedException:
            return False
        return True

    wait_for(drv, clicked, what, shots=shots)


def open_step(drv, label: str, shots: Path | None, inside: str,
              ready: Callable[[Any], bool] = lambda step: True, what: str | None = None,
              steps: Callable[[Any], list[Any]] | None = None):
    """Expand the step whose label contains `label` until `inside` (css) shows in it and
    ready(step) holds; return the step. Clicks again if the step is still collapsed a while
    later (a click during a rerun can be lost). steps(drv) lists the candidate steps (by
    default every step on the page, first match wins)."""
    steps = steps or step_expanders

    clicked = [0.0]

    def opened(d):
        step = next((s for s in steps(d) if label in s.text), None)
        if step is None:
            return None
        summary = step.find_element(By.CSS_SELECTOR, "summary")
        if summary.get_attribute("aria-expanded") != "true":
            if time.monotonic() - clicked[0] > 2:
                scroll_to(d, summary)
                try:
                    summary.click()
                except ElementClickInterceptedException:
                    return None  # something still moves over it: scroll and click again
                clicked[0] = time.monotonic()
            return None
        found = [e for e in step.find_elements(By.CSS_SELECTOR, inside) if e.is_displayed()]
        return step if found and ready(step) else None

    return wait_for(drv, opened, what or f"{inside} in the step {label!r}", shots=shots)


def last_turn_steps(drv) -> list[Any]:
    """The step expanders of the last assistant message."""

    messages = drv.find_elements(By.CSS_SELECTOR, CHAT_MESSAGE)
    return [e for e in messages[-1].find_elements(By.CSS_SELECTOR, EXPANDER)
            if e.find_elements(By.CSS_SELECTOR, STEP_ICON)] if messages else []


def settled(drv) -> bool:
    """The script run is over: no Stop button, and the chat input is enabled again (it is
    disabled while a submitted question's script run lasts)."""
    return (not visible(drv, "button", "Stop")
            and any(t.is_enabled() for t in visible(drv, CHAT_INPUT)))


def script_idle(drv) -> bool:
    """No script run is under way or asked for (Streamlit's own `data-test-script-state`):
    text typed during a rerun (after "New chat", say) is lost when the rerun redraws the
    chat input, and the Enter after it sends nothing."""
    states = [e.get_attribute("data-test-script-state")
              for e in drv.find_elements(By.CSS_SELECTOR, "[data-test-script-state]")]
    return not any(s in _RUNNING_STATES for s in states)


_RUNNING_STATES = frozenset(("running", "rerunRequested", "stopRequested"))


def open_app(drv, url: str, shots: Path | None = None) -> None:
    """Load the app and wait until it is ready for input."""
    drv.get(url)
    wait_for(drv, lambda d: visible(d, CHAT_INPUT), "the chat input", shots=shots)
    wait_for(drv, lambda d: "Offline engine" in page_text(d), "the offline mode label",
             shots=shots)


def send_to_uploader(drv, path: Path, shots: Path | None = None) -> None:
    """Hand a file to the sidebar uploader, once the page has drawn it (no wait after)."""

    def sent(d):
        inputs = d.find_elements(By.CSS_SELECTOR, UPLOADER)
        if not inputs:
            return False
        inputs[0].send_keys(str(path))
        return True

    wait_for(drv, sent, f"the sidebar uploader for {path.name}", shots=shots)


def upload(drv, path: Path, shots: Path | None = None) -> None:
    """Add a file through the sidebar uploader; wait for its chat message and panel."""
    send_to_uploader(drv, path, shots)
    wait_for(drv, lambda d: visible(d, CHAT_MESSAGE, f"Added {path.name}"),
             "the upload message", shots=shots)
    wait_for(drv, lambda d: visible(d, "h3", path.name), "the workspace file", shots=shots)


def ask(drv, question: str, shots: Path | None = None,
        before_enter: Callable[[Any], None] | None = None) -> None:
    """Type a question into the enabled chat input and press Enter (before_enter(drv) runs
    just before the key, e.g. to start a timer in the page)."""

    def enabled_input(d):
        return next((t for t in visible(d, CHAT_INPUT) if t.is_enabled()), None)

    def typed(d):
        box = enabled_input(d) if script_idle(d) else None
        if box is None:
            return False
        box.click()
        box.clear()
        box.send_keys(question)
        return box.get_attribute("value") == question

    wait_for(drv, typed, "an enabled chat input", shots=shots)
    if before_enter is not None:
        before_enter(drv)
    # Typing and Enter go to the focused element, which stays the chat input even when
    # Streamlit replaced a stale handle meanwhile.
    drv.switch_to.active_element.send_keys(Keys.ENTER)


SIDEBAR = '[data-testid="stSidebar"]'


def make_share_link(drv, shots: Path | None = None, timeout: float = WAIT_S) -> str:
    """Make a read-only link of the open chat through the sidebar's share panel, as an owner
    does; return the link it shows."""
    def made(d) -> str | None:
        for code in visible(d, f'{SIDEBAR} [data-testid="stCode"]'):
            if "?share=" in code.text:
                return code.text.strip()
        return None

    click(drv, lambda d: next(iter(visible(d, f"{SIDEBAR} summary", "Share this chat")), None),
          "the share panel", shots=shots)
    click(drv, lambda d: next(iter(visible(d, f"{SIDEBAR} button", "Make a read-only link")),
                              None), "Make a read-only link", shots=shots)
    return wait_value(drv, made, bool, "the link made", timeout=timeout, shots=shots)
