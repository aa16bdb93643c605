"""End to end in a real headless Chromium: upload, ask, watch the steps, open a table, click a
citation, stop a long run; and the page never requests anything but the app itself.

Starts the app with `streamlit run` on a free port with a temporary data directory and drives
Chromium through Selenium. Skipped when /usr/bin/chromium or /usr/bin/chromedriver is missing.
Screenshots go to a temporary directory; the chat one is also copied to docs/ for the README.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "streamlit_app.py"
SAMPLE = ROOT / "tests" / "samples" / "financial.xlsx"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
DOCS_SCREENSHOT = ROOT / "docs" / "screenshot-chat.png"
QUESTION = "What was the total operating expense for Q2 2024?"
WAIT_S = 60
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NON_NETWORK_SCHEMES = {"data", "blob", "about", "chrome-extension", "chrome", "devtools"}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                       reason="needs Debian's chromium and chromedriver at /usr/bin "
                              "(apt install chromium chromium-driver)"),
]

webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# A long tree-navigation step, so that Stop can be pressed while a run is busy. It wraps the
# real app (runpy) in the server process only; nothing in the app knows about it.
SLOW_APP = """
import runpy

import agent.nodes as nodes
import agent.run as agent_run
from agent.graph import build_graph

if not getattr(nodes, "_slow_for_browser_test", False):
    real_tree_navigate = nodes.tree_navigate

    def tree_navigate(state, config):
        ctx = config["configurable"]["run"]
        ctx.emit("tree_navigate", "start", "Matching the question to rows and columns")
        ctx.cancel.wait({seconds})  # only Stop ends this step early
        return real_tree_navigate(state, config)

    nodes.tree_navigate = tree_navigate
    nodes._slow_for_browser_test = True
    graph = build_graph()
    agent_run.default_graph = lambda: graph

runpy.run_path({app!r}, run_name="__main__")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(script: Path, data_dir: Path, log_path: Path) -> Iterator[str]:
    """Run `streamlit run script` until the caller is done; yield its URL once healthy."""
    port = _free_port()
    env = {**os.environ, "TABLELENS_DATA_DIR": str(data_dir)}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false"],
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
                pytest.fail("the app did not start:\n" + log_path.read_text(errors="replace"))
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def app_url(tmp_path) -> Iterator[str]:
    yield from _serve(APP, tmp_path / "data", tmp_path / "server.log")


@pytest.fixture
def slow_app_url(tmp_path) -> Iterator[str]:
    script = tmp_path / "slow_app.py"
    script.write_text(SLOW_APP.format(seconds=WAIT_S, app=str(APP)))
    yield from _serve(script, tmp_path / "data", tmp_path / "server.log")


@pytest.fixture
def driver(tmp_path):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                "--disable-dev-shm-usage", "--window-size=1500,1250",
                f"--user-data-dir={tmp_path / 'chrome-profile'}"):
        options.add_argument(arg)
    options.binary_location = str(CHROMIUM)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    drv = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield drv
    finally:
        drv.quit()


def wait_for(drv, condition, what: str, timeout: float = WAIT_S, shots: Path | None = None):
    """Wait until condition(drv) is truthy; fail naming `what` (with a screenshot) if not."""
    def check(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False  # Streamlit re-rendered the element; look again

    try:
        return WebDriverWait(drv, timeout, poll_frequency=0.2).until(check)
    except Exception as exc:
        if shots is not None:
            drv.save_screenshot(str(shots / f"failed-{what.replace(' ', '-')[:40]}.png"))
            (shots / "failed-page.html").write_text(drv.page_source)
        pytest.fail(f"{what} did not appear within {timeout} s: {type(exc).__name__}")


def visible(drv, css: str, text: str | None = None):
    """Return the displayed elements matching css (and containing text)."""
    return [e for e in drv.find_elements(By.CSS_SELECTOR, css)
            if e.is_displayed() and (text is None or text in e.text)]


def step_expanders(drv):
    """The step timeline's expanders (st.status(type="step") renders stExpanderStepIcon)."""
    return [e for e in drv.find_elements(By.CSS_SELECTOR, '[data-testid="stExpander"]')
            if e.find_elements(By.CSS_SELECTOR, '[data-testid="stExpanderStepIcon"]')]


def scroll_to(drv, element) -> None:
    """Scroll an element to the middle of the view at once (no smooth scrolling, which would
    move it under the pointer while Selenium clicks)."""
    drv.execute_script(
        "arguments[0].scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});",
        element)


def open_step(drv, label: str, shots: Path, inside: str):
    """Expand the step whose label contains `label` until `inside` (css) shows in it; return
    the step. Clicks again if the step is still collapsed a while later."""
    clicked = [0.0]

    def opened(d):
        step = next((s for s in step_expanders(d) if label in s.text), None)
        if step is None:
            return None
        summary = step.find_element(By.CSS_SELECTOR, "summary")
        if summary.get_attribute("aria-expanded") != "true":
            if time.monotonic() - clicked[0] > 2:
                scroll_to(d, summary)
                summary.click()
                clicked[0] = time.monotonic()
            return None
        found = [e for e in step.find_elements(By.CSS_SELECTOR, inside) if e.is_displayed()]
        return step if found else None

    return wait_for(drv, opened, f"{inside} in the step {label!r}", shots=shots)


def upload_and_ask(drv, url: str, shots: Path) -> None:
    drv.get(url)
    wait_for(drv, lambda d: visible(d, '[data-testid="stChatInput"] textarea'),
             "the chat input", shots=shots)
    wait_for(drv, lambda d: "Offline engine" in d.find_element(By.TAG_NAME, "body").text,
             "the offline mode label", shots=shots)
    uploader = wait_for(drv, lambda d: d.find_elements(
        By.CSS_SELECTOR, '[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]'),
        "the sidebar uploader", shots=shots)[0]
    uploader.send_keys(str(SAMPLE))
    wait_for(drv, lambda d: visible(d, '[data-testid="stChatMessage"]',
                                    "Added financial.xlsx"), "the upload message", shots=shots)
    wait_for(drv, lambda d: visible(d, "h3", "financial.xlsx"), "the workspace file",
             shots=shots)
    box = wait_for(drv, lambda d: next((t for t in visible(
        d, '[data-testid="stChatInput"] textarea') if t.is_enabled()), None),
        "an enabled chat input", shots=shots)
    box.click()
    box.send_keys(QUESTION)
    box.send_keys(Keys.ENTER)


def requested_urls(drv) -> list[str]:
    """Every URL the page requested (HTTP and websockets), from Chrome's performance log."""
    urls = []
    for entry in drv.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(params["request"]["url"])
        elif message.get("method") == "Network.webSocketCreated":
            urls.append(params["url"])
    return urls


def outside_requests(urls: list[str]) -> list[str]:
    """The URLs that leave this machine (or use a scheme that could)."""
    bad = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme in NON_NETWORK_SCHEMES:
            continue
        if parts.scheme not in ("http", "https", "ws", "wss") or parts.hostname not in LOCAL_HOSTS:
            bad.append(url)
    return bad


def test_upload_ask_trace_citation_and_no_outside_requests(app_url, driver, tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    upload_and_ask(driver, app_url, shots)

    # The step timeline: one status per node, then the answer and its cited cells.
    wait_for(driver, lambda d: len(step_expanders(d)) >= 6, "six steps", shots=shots)
    wait_for(driver, lambda d: visible(d, '[data-testid="stChatMessage"] h3', "375"),
             "the answer 375", shots=shots)
    labels = [s.text for s in step_expanders(driver)]
    for node in ("Decompose", "Retrieve", "Tree navigation", "SQL step", "Validate", "Answer"):
        assert any(node in label for label in labels), (node, labels)
    for ref in ("P&L!C5", "P&L!C6", "P&L!C7"):
        wait_for(driver, lambda d, ref=ref: visible(d, "button", ref), f"the citation {ref}",
                 shots=shots)

    # An intermediate table: expand the SQL step (its code and table) and the tree step (its
    # rows and their chart).
    sql_step = open_step(driver, "SQL step", shots, '[data-testid="stDataFrame"]')
    assert any("SELECT" in c.text for c in sql_step.find_elements(
        By.CSS_SELECTOR, '[data-testid="stCode"]') if c.is_displayed()), "no SQL shown"
    tree_step = open_step(driver, "Tree navigation", shots, '[data-testid="stVegaLiteChart"]')
    assert len([b for b in tree_step.find_elements(
        By.CSS_SELECTOR, '[data-testid="stDownloadButton"]') if b.is_displayed()]) == 2, \
        "the CSV and Excel downloads are missing"
    assert "Salaries" in tree_step.text and "rows used" in tree_step.text
    # The README's picture: tall enough for the question, the steps, a table and the answer.
    driver.set_window_size(1800, 2100)
    time.sleep(1.0)  # let the chart and the table finish drawing
    driver.save_screenshot(str(shots / "chat.png"))
    driver.set_window_size(1500, 1250)

    # A citation opens the source table with the cited cells highlighted.
    cite = visible(driver, "button", "P&L!C6")[0]
    scroll_to(driver, cite)
    cite.click()
    dialog = wait_for(driver, lambda d: next(iter(visible(d, '[role="dialog"]')), None),
                      "the citation dialog", shots=shots)
    cited = wait_for(driver, lambda d: dialog.find_elements(By.CSS_SELECTOR, "td.tl-cited"),
                     "highlighted cells", shots=shots)
    assert sorted(c.get_attribute("data-ref") for c in cited) == ["C5", "C6", "C7"]
    assert [c.get_attribute("data-ref")
            for c in dialog.find_elements(By.CSS_SELECTOR, "td.tl-focus")] == ["C6"]
    time.sleep(0.5)
    driver.save_screenshot(str(shots / "citation.png"))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)

    # A refresh keeps the chat (the transcript is in the workspace database).
    driver.refresh()
    wait_for(driver, lambda d: visible(d, '[data-testid="stChatMessage"] h3', "375"),
             "the answer after a refresh", shots=shots)
    wait_for(driver, lambda d: len(step_expanders(d)) >= 6, "the steps after a refresh",
             shots=shots)

    if os.environ.get("TABLELENS_UPDATE_SCREENSHOT"):
        # Refresh the README's screenshot only on request, so a test run leaves git clean.
        DOCS_SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shots / "chat.png", DOCS_SCREENSHOT)

    urls = requested_urls(driver)
    assert any(urlsplit(u).path.startswith("/_stcore/") for u in urls), "no app traffic logged"
    assert outside_requests(urls) == []


def test_stop_cancels_a_long_run_and_keeps_its_trace(slow_app_url, driver, tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    upload_and_ask(driver, slow_app_url, shots)
    wait_for(driver, lambda d: any("Retrieve" in s.text for s in step_expanders(d)),
             "the first steps", shots=shots)
    stop = wait_for(driver, lambda d: next(iter(visible(d, "button", "Stop")), None),
                    "the Stop button", shots=shots)
    started = time.monotonic()
    stop.click()
    wait_for(driver, lambda d: visible(d, '[data-testid="stChatMessage"]',
                                       "Stopped by the user"), "the stopped message",
             timeout=20, shots=shots)
    assert time.monotonic() - started < 15, "Stop waited for the step to end by itself"
    wait_for(driver, lambda d: not visible(d, "button", "Stop"), "the Stop button gone",
             timeout=20, shots=shots)
    labels = [s.text for s in step_expanders(driver)]
    assert any("Decompose" in x for x in labels) and any("Retrieve" in x for x in labels)
    assert any("Stopped - Tree navigation" in x for x in labels), labels
    assert not visible(driver, '[data-testid="stChatMessage"] h3', "375")
    driver.save_screenshot(str(shots / "stopped.png"))
    # The chat stays usable: the input is enabled again.
    wait_for(driver, lambda d: any(t.is_enabled() for t in visible(
        d, '[data-testid="stChatInput"] textarea')), "an enabled chat input", shots=shots)
