"""End to end in a real headless Chromium: upload, ask, watch the steps, open a table, click a
citation, stop a long run; a refusal and blank cells show without an error, also after a
reload; a follow-up is answered and comes back after a reload; the sidebar lists the chats
and deletes one; and the page never requests anything but
the app itself.

Starts the app with `streamlit run` on a free port with a temporary data directory and drives
Chromium through Selenium (bench/browser_harness.py, shared with the latency benchmark).
Skipped when /usr/bin/chromium or /usr/bin/chromedriver is missing. Every check of the page
waits for the content it checks: Streamlit fills and re-renders elements after a click, so a
single read races the page. Screenshots go to a temporary directory; the chat one is also
copied to docs/ for the README.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.browser_harness import (
    ALERT,
    APP,
    CHAT_INPUT,
    CHAT_MESSAGE,
    ROOT,
    WAIT_S,
    ask,
    chrome,
    click,
    last_turn_steps,
    open_app,
    open_step,
    page_text,
    send_to_uploader,
    serve,
    settled,
    step_expanders,
    unavailable,
    upload,
    visible,
    wait_for,
    wait_value,
)

SAMPLE = ROOT / "tests" / "samples" / "financial.xlsx"
DOCS_SCREENSHOT = ROOT / "docs" / "screenshot-chat.png"
QUESTION = "What was the total operating expense for Q2 2024?"
NODES = ("Decompose", "Retrieve", "Tree navigation", "SQL step", "Validate", "Answer")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NON_NETWORK_SCHEMES = {"data", "blob", "about", "chrome-extension", "chrome", "devtools"}
ERROR_TEXTS = ("could not be shown", "Something went wrong")

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))]

if unavailable() is None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

# A long tree-navigation step, so that Stop can be pressed while a run is busy. It wraps the
# real app (runpy) in the server process only; nothing in the app knows about it.
SLOW_APP = """
import runpy

import agent.nodes as nodes
import agent.run as agent_run
from agent.graph import build_graph

if not getattr(nodes, "_slow_for_browser_test", False):
    real_tree_navigate = nodes.tree_navigate

    def tree_navigate(state, runtime):
        ctx = runtime.context
        ctx.trace.emit("tree_navigate", "start", "Matching the question to rows and columns")
        ctx.cancel.wait({seconds})  # only Stop ends this step early
        return real_tree_navigate(state, runtime)

    nodes.tree_navigate = tree_navigate
    nodes._slow_for_browser_test = True
    graph = build_graph()
    agent_run.default_graph = lambda: graph

runpy.run_path({app!r}, run_name="__main__")
"""


@pytest.fixture
def slow_app_url(tmp_path) -> Iterator[str]:
    script = tmp_path / "slow_app.py"
    script.write_text(SLOW_APP.format(seconds=WAIT_S, app=str(APP)))
    with serve(script, tmp_path / "data", tmp_path / "server.log") as url:
        yield url


@pytest.fixture
def driver(tmp_path):
    with chrome(tmp_path / "chrome-profile", performance_log=True) as drv:
        yield drv


def sample_answered(drv, url: str, shots: Path, what: str = "the first turn finished") -> None:
    """Open the app, add the sample workbook and ask QUESTION: the answer 375 shown, the
    turn finished."""
    open_app(drv, url, shots)
    upload(drv, SAMPLE, shots)
    ask(drv, QUESTION, shots)
    wait_for(drv, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"), "the answer 375",
             shots=shots)
    wait_for(drv, settled, what, shots=shots)


def step_labels(drv) -> list[str]:
    return [s.text for s in step_expanders(drv)]


def has_every_node(labels: list[str]) -> bool:
    return all(any(node in label for label in labels) for node in NODES)


def shown(elements) -> list:
    return [e for e in elements if e.is_displayed()]


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


def test_upload_ask_trace_citation_and_no_outside_requests(app_url, driver, shots):
    open_app(driver, app_url, shots)
    upload(driver, SAMPLE, shots)
    ask(driver, QUESTION, shots)

    # The step timeline: one status per node, then the answer and its cited cells.
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"), "the answer 375",
             shots=shots)
    wait_value(driver, step_labels, has_every_node, "a step per node", shots=shots)
    for ref in ("P&L!C5", "P&L!C6", "P&L!C7"):
        wait_for(driver, lambda d, ref=ref: visible(d, "button", ref), f"the citation {ref}",
                 shots=shots)

    # An intermediate table: expand the SQL step (its code and table) and the tree step (its
    # rows, their chart and the two downloads).
    open_step(driver, "SQL step", shots, '[data-testid="stDataFrame"]',
              ready=lambda step: any("SELECT" in c.text for c in shown(
                  step.find_elements(By.CSS_SELECTOR, '[data-testid="stCode"]'))),
              what="the SQL step's table and its SELECT")
    open_step(driver, "Tree navigation", shots, '[data-testid="stVegaLiteChart"]',
              ready=lambda step: len(shown(step.find_elements(
                  By.CSS_SELECTOR, '[data-testid="stDownloadButton"]'))) == 2
              and "Salaries" in step.text and "rows used" in step.text.lower(),
              what="the tree step's chart, its CSV and Excel downloads, Salaries, rows used")
    # The README's picture: tall enough for the question, the steps, a table and the answer.
    driver.set_window_size(1800, 2100)
    time.sleep(1.0)  # let the chart and the table finish drawing (a picture, not a check)
    driver.save_screenshot(str(shots / "chat.png"))
    driver.set_window_size(1500, 1250)

    # A citation opens the source table with the cited cells highlighted.
    click(driver, lambda d: next(iter(visible(d, "button", "P&L!C6")), None),
          "the citation P&L!C6", shots=shots)

    def highlighted(d):
        dialog = next(iter(visible(d, '[role="dialog"]')), None)
        if dialog is None:
            return None
        return (sorted(c.get_attribute("data-ref")
                       for c in dialog.find_elements(By.CSS_SELECTOR, "td.tl-cited")),
                [c.get_attribute("data-ref")
                 for c in dialog.find_elements(By.CSS_SELECTOR, "td.tl-focus")])

    wait_value(driver, highlighted, lambda got: got == (["C5", "C6", "C7"], ["C6"]),
               "the cited cells C5-C7 highlighted, C6 in focus", shots=shots)
    time.sleep(0.5)
    driver.save_screenshot(str(shots / "citation.png"))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)

    # A refresh keeps the chat (the transcript is in the workspace database).
    driver.refresh()
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"),
             "the answer after a refresh", shots=shots)
    wait_value(driver, step_labels, has_every_node, "the steps after a refresh", shots=shots)

    if os.environ.get("TABLELENS_UPDATE_SCREENSHOT"):
        # Refresh the README's screenshot only on request, so a test run leaves git clean.
        DOCS_SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shots / "chat.png", DOCS_SCREENSHOT)

    urls = requested_urls(driver)
    assert any(urlsplit(u).path.startswith("/_stcore/") for u in urls), "no app traffic logged"
    assert outside_requests(urls) == []


def test_stop_cancels_a_long_run_and_keeps_its_trace(slow_app_url, driver, shots):
    open_app(driver, slow_app_url, shots)
    upload(driver, SAMPLE, shots)
    ask(driver, QUESTION, shots)
    wait_for(driver, lambda d: any("Retrieve" in s.text for s in step_expanders(d)),
             "the first steps", shots=shots)
    click(driver, lambda d: next(iter(visible(d, "button", "Stop")), None), "the Stop button",
          shots=shots)
    started = time.monotonic()
    wait_for(driver, lambda d: visible(d, CHAT_MESSAGE, "Stopped by the user"),
             "the stopped message", timeout=20, shots=shots)
    assert time.monotonic() - started < 15, "Stop waited for the step to end by itself"
    wait_for(driver, lambda d: not visible(d, "button", "Stop"), "the Stop button gone",
             timeout=20, shots=shots)
    wait_value(driver, step_labels,
               lambda labels: any("Decompose" in x for x in labels)
               and any("Retrieve" in x for x in labels)
               and any("Stopped - Tree navigation" in x for x in labels),
               "the steps before the stop, tree navigation marked stopped", shots=shots)
    # The chat stays usable: the input is enabled again (the script run is over, so nothing
    # more will be drawn), and the run never got as far as an answer.
    wait_for(driver, lambda d: any(t.is_enabled() for t in visible(d, CHAT_INPUT)),
             "an enabled chat input", shots=shots)
    wait_for(driver, lambda d: not visible(d, f"{CHAT_MESSAGE} h3", "375"),
             "no answer after the stop", shots=shots)
    driver.save_screenshot(str(shots / "stopped.png"))


# --- a refusal, and step tables with blank and text cells ------------------------------------

REFUSED = "How many penguins live on the moon?"
REFUSAL = ('Needs an LLM: the words "penguins", "moon" do not match anything in costs.xlsx, '
           "sheet Costs")
ANSWERED = "What is the total Q2 2024?"  # its tree step's rows hold a blank Item cell


def costs_workbook(path: Path) -> Path:
    """A sheet with a row-group column (merged, and blank below a group's first row), a text
    column, blank and text ("n/a") cells among the numbers."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = "Costs"
    sheet.append(["Region", "Item", "Q1 2024", "Q2 2024", "Notes"])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in [("North", "Rent", 120, 125, "lease renewed"),
                (None, "Travel", None, 40, None),
                (None, "Software", 60, None, "annual plan"),
                ("South", "Rent", 90, 95, None),
                (None, "Travel", "n/a", 35, "n/a"),
                (None, "Software", None, 55, "pending"),
                ("East", "Rent", 70, 75, None),
                (None, None, 15, 20, "misc")]:
        sheet.append(list(row))
    sheet.merge_cells("A2:A4")
    book.save(path)
    return path


def wait_without_errors(drv, what: str, shots: Path) -> None:
    """Wait until the page has settled, then check that it shows no error text."""
    wait_for(drv, settled, f"the page settled ({what})", shots=shots)
    wait_value(drv, page_text, lambda text: not any(e in text for e in ERROR_TEXTS),
               f"a page without {' or '.join(map(repr, ERROR_TEXTS))} ({what})", timeout=5,
               shots=shots)


def refusal_shown(drv) -> bool:
    return bool(visible(drv, f"{CHAT_MESSAGE} {ALERT}", REFUSAL))


def test_refusal_and_blank_cells_show_without_errors(app_url, driver, shots, tmp_path):
    open_app(driver, app_url, shots)
    upload(driver, costs_workbook(tmp_path / "costs.xlsx"), shots)

    ask(driver, REFUSED, shots)
    wait_for(driver, refusal_shown, "the refusal's reason in a warning", shots=shots)
    wait_without_errors(driver, "after the refusal", shots)

    # The same chat from its URL: the refusal comes back from the transcript.
    url = driver.current_url
    assert "session=" in urlsplit(url).query, url
    driver.get(url)
    wait_for(driver, refusal_shown, "the refusal's reason after a reload", shots=shots)
    wait_without_errors(driver, "after the reload", shots)

    # An answered question whose step table holds a blank cell (and the chart beside it).
    ask(driver, ANSWERED, shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "445"), "the answer 445",
             shots=shots)
    wait_without_errors(driver, "after the answer", shots)
    open_step(driver, "Tree navigation", shots, '[data-testid="stDataFrame"]',
              steps=last_turn_steps, what="the answered turn's tree step table")
    wait_without_errors(driver, "with the step table open", shots)
    wait_for(driver, refusal_shown, "the earlier refusal still shown", shots=shots)


COLUMN_BOXES = """const block = document.querySelector(
  '.st-key-chat_and_workspace [data-testid="stHorizontalBlock"]');
if (!block) return null;
return [...block.children].map(c => c.getBoundingClientRect().toJSON());"""
CITED_IN_VIEW = """const box = arguments[0].querySelector('.tl-scroll');
const cell = box && box.querySelector('td.tl-focus');
if (!cell) return null;
const o = box.getBoundingClientRect(), c = cell.getBoundingClientRect();
return [box.scrollTop, c.top >= o.top && c.bottom <= o.bottom];"""


def test_a_far_citation_opens_scrolled_to_it_and_a_narrow_window_stacks_the_panel(
        app_url, driver, shots, tmp_path):
    tall = tmp_path / "tall.csv"
    tall.write_text("Item,Amount\n" + "".join(f"Item {i},{i * 7}\n" for i in range(1, 151)),
                    encoding="utf-8")
    open_app(driver, app_url, shots)
    upload(driver, tall, shots)
    ask(driver, "What is the amount of Item 140?", shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "980"), "the answer 980",
             shots=shots)
    click(driver, lambda d: next(iter(visible(d, "button", "B141")), None),
          "the citation of B141", shots=shots)

    def scrolled(d):
        dialog = next(iter(visible(d, '[role="dialog"]')), None)
        return d.execute_script(CITED_IN_VIEW, dialog) if dialog is not None else None

    # Row 141 of a 151-row table: drawn whole, and scrolled so that the cell is on screen.
    wait_value(driver, scrolled, lambda got: bool(got) and got[0] > 0 and got[1],
               "the dialog's table scrolled to the cited cell", shots=shots)
    driver.save_screenshot(str(shots / "citation-far-down.png"))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)

    # On a narrow window the workspace goes under the chat, not into a sliver beside it.
    def column_boxes(d):
        return d.execute_script(COLUMN_BOXES)

    def beside(boxes) -> bool:
        return boxes is not None and boxes[1]["left"] > boxes[0]["right"] - 1 \
            and boxes[1]["width"] >= 319  # a usable panel, not a sliver

    def under(boxes) -> bool:
        return boxes is not None and boxes[1]["top"] >= boxes[0]["bottom"] - 1 \
            and boxes[1]["width"] >= boxes[0]["width"] - 1

    wait_value(driver, column_boxes, beside, "the workspace beside the chat", shots=shots)
    try:
        for width in (1300, 1200, 1100):  # wide enough for neither a sliver nor overlap
            driver.set_window_size(width, 1100)
            wait_value(driver, column_boxes, lambda b: beside(b) or under(b),
                       f"at {width} px, the workspace beside the chat or under it",
                       shots=shots)
        driver.set_window_size(900, 1100)
        wait_value(driver, column_boxes, under, "the workspace under the chat, as wide",
                   shots=shots)
        driver.save_screenshot(str(shots / "narrow.png"))
    finally:
        driver.set_window_size(1500, 1250)


NEWEST_BOX = """const m = [...document.querySelectorAll('[data-testid="stChatMessage"]')].pop();
const r = m.getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight];"""
READ_FROM_THE_TOP = """const m = document.querySelector('[data-testid="stChatMessage"]');
let e = m.parentElement;
for (; e; e = e.parentElement) {
  const o = getComputedStyle(e).overflowY;
  if ((o === 'auto' || o === 'scroll') && e.scrollHeight > e.clientHeight) break;
}
(e || document.scrollingElement).scrollTop = 0;"""


def newest_in_view(drv) -> bool:
    top, bottom, height = drv.execute_script(NEWEST_BOX)
    return top >= 0 and bottom <= height


def test_the_newest_answer_comes_into_view_unless_the_reader_scrolled_up(app_url, driver, shots):
    driver.set_window_size(1400, 900)
    open_app(driver, app_url, shots)
    upload(driver, SAMPLE, shots)
    for question in ("What is Q1 for Rent?", "What is Q3 for Marketing?",
                     "What is Q2 for Salaries?"):
        ask(driver, question, shots)
        wait_for(driver, settled, f"the answer to {question!r}", shots=shots)
        wait_for(driver, newest_in_view, "the newest answer in view", shots=shots)
    # Reading an earlier turn: the page must not pull the reader back down.
    driver.execute_script(READ_FROM_THE_TOP)
    time.sleep(2)
    assert not newest_in_view(driver)
    ask(driver, "What is Q4 for Revenue?", shots)
    wait_for(driver, settled, "the last answer", shots=shots)
    wait_for(driver, newest_in_view, "the answer to the question just sent", shots=shots)


FOUR_FILES = tuple(ROOT / "tests" / "samples" / name
                   for name in ("financial.xlsx", "hr.xlsx", "multi_sheet.xlsx", "report.ods"))
TURN_BOX = """const [question, reply] = [...document.querySelectorAll(
  '[data-testid="stChatMessage"]')].slice(-2).map(m => m.getBoundingClientRect());
const box = document.querySelector('[data-testid="stBottom"]');
return [question.top, reply.bottom, box ? box.getBoundingClientRect().top : innerHeight];"""


def turn_in_view(drv) -> bool:
    """The newest question and its reply, whole, between the page's top and the chat box."""
    top, bottom, chat_box = drv.execute_script(TURN_BOX)
    return top >= 0 and bottom <= chat_box


def test_the_turn_being_answered_stays_in_view_beside_a_long_workspace(slow_app_url, driver,
                                                                      shots):
    """With four files the workspace panel is taller than the chat, and following the page's
    end took the turn out of view (its question at y = -1004 in a 1107 px viewport)."""
    open_app(driver, slow_app_url, shots)
    for path in FOUR_FILES:
        upload(driver, path, shots)
        wait_for(driver, settled, f"the upload of {path.name}", shots=shots)
    ask(driver, QUESTION, shots)
    wait_for(driver, lambda d: visible(d, "button", "Stop")
             and any("Tree navigation" in label for label in step_labels(d)),
             "the run waiting in tree navigation", shots=shots)
    wait_for(driver, turn_in_view, "the question and its live steps in view", timeout=10,
             shots=shots)
    click(driver, lambda d: next(iter(visible(d, "button", "Stop")), None), "the Stop button",
          shots=shots)
    wait_for(driver, lambda d: visible(d, CHAT_MESSAGE, "Stopped by the user"),
             "the stopped message", timeout=20, shots=shots)
    wait_for(driver, settled, "the stopped run's end", shots=shots)
    wait_for(driver, turn_in_view, "the stopped turn in view", timeout=10, shots=shots)


# --- a file added to the uploader while an upload runs ---------------------------------------

BIG_ROWS = 60_000  # a CSV whose upload still runs when the second file comes
SECOND = ROOT / "tests" / "samples" / "hr.xlsx"
UPLOAD_TROUBLE = ("already in this chat", "unexpected problem")


def big_csv(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("Region,Item," + ",".join(f"M{m}" for m in range(20)) + "\n")
        for i in range(BIG_ROWS):
            handle.write(f"R{i % 7},Item{i}," + ",".join(str(i * m % 997) for m in range(20))
                         + "\n")
    return path


def upload_lines(drv, names: tuple[str, ...]) -> list[str]:
    """The chat's lines that name one of these files (one per upload message)."""
    return [line for message in visible(drv, CHAT_MESSAGE) for line in message.text.split("\n")
            if any(name in line for name in names)]


def workspace_files(drv) -> list[str]:
    return sorted(h.text for h in visible(drv, "h3") if h.text in ("big.csv", SECOND.name))


def test_a_file_added_while_an_upload_runs_leaves_one_message_each_and_only_whole_files(
        app_url, driver, shots, tmp_path):
    """The second file's rerun stops the first upload (Streamlit starts it while the stopped
    run still rolls back): each file gets one message, the workspace panel shows only files
    stored whole, and a refresh shows the same."""
    big = big_csv(tmp_path / "big.csv")
    names = (big.name, SECOND.name)
    open_app(driver, app_url, shots)
    send_to_uploader(driver, big, shots)
    wait_for(driver, lambda d: visible(d, "button", "Stop upload"), "the Stop upload button",
             shots=shots)
    send_to_uploader(driver, SECOND, shots)
    wait_for(driver, lambda d: settled(d) and upload_lines(d, (big.name,)),
             "the page settled with a message for big.csv", shots=shots)

    def consistent(lines: list[str], files: list[str]) -> bool:
        per_file = [[line for line in lines if name in line] for name in names]
        added = sorted(name for name, said in zip(names, per_file, strict=True)
                       if said and said[0].startswith(f"Added {name}"))
        return (len(per_file[0]) == 1 and len(per_file[1]) <= 1
                and not any(t in line for line in lines for t in UPLOAD_TROUBLE)
                and files == added)

    seen = wait_value(driver, lambda d: (upload_lines(d, names), workspace_files(d)),
                      lambda got: consistent(*got),
                      "one message per file and only added files in the workspace",
                      timeout=10, shots=shots)
    driver.refresh()
    wait_for(driver, lambda d: settled(d) and upload_lines(d, (big.name,)),
             "the chat after a refresh", shots=shots)
    wait_value(driver, lambda d: (upload_lines(d, names), workspace_files(d)),
               lambda got: got == seen, "the same messages and files after a refresh",
               timeout=10, shots=shots)
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log and "savepoint" not in log, log[-3000:]


SIDEBAR = '[data-testid="stSidebar"]'


def listed_chats(drv) -> list[str]:
    """The titles of the sidebar's chats, in order (each title button's own text)."""
    return [label.text for label in drv.find_elements(
        By.CSS_SELECTOR, '[class*="st-key-open_chat_"] button [data-testid="stMarkdownContainer"]')
        if label.is_displayed()]


def first_visible(css: str, text: str | None = None):
    return lambda d: next(iter(visible(d, css, text)), None)


def delete_first_listed_chat(drv, shots: Path) -> None:
    """Delete the sidebar's first chat (the newest) through its menu, confirmed."""
    click(drv, first_visible(f'{SIDEBAR} [data-testid="stPopover"] button'),
          "the newest chat's menu", shots)
    click(drv, first_visible('[class*="st-key-delete_chat_"] button', "Delete chat"),
          "Delete chat", shots)
    click(drv, first_visible('[class*="st-key-delete_chat_yes_"] button'),
          "the confirmation's Delete the chat", shots)


def test_the_sidebar_lists_the_chats_and_deletes_one(app_url, driver, shots):
    open_app(driver, app_url, shots)
    ask(driver, "Total rent for Q2?", shots)  # no file: refused at once, but a chat
    wait_value(driver, listed_chats, lambda v: v == ["Total rent for Q2?"],
               "the first chat in the list", shots=shots)
    click(driver, first_visible(f"{SIDEBAR} button", "New chat"), "New chat", shots)
    wait_for(driver, lambda d: "session=" not in d.current_url, "a new chat's bare URL",
             shots=shots)
    ask(driver, "Revenue by region?", shots)
    wait_value(driver, listed_chats, lambda v: v == ["Revenue by region?", "Total rent for Q2?"],
               "both chats, the newest first", shots=shots)

    delete_first_listed_chat(driver, shots)
    wait_value(driver, listed_chats, lambda v: v == ["Total rent for Q2?"],
               "the list without the deleted chat", shots=shots)
    wait_for(driver, lambda d: "session=" not in d.current_url,
             "a new, empty chat in place of the deleted one", shots=shots)


def test_a_question_in_a_chat_deleted_in_another_window_is_not_asked(app_url, driver, shots,
                                                                     tmp_path):
    """A second window still showing a chat that the first deleted re-made it when asked a
    question: an empty chat in the list, titled by the question and captioned with the old
    file count, whose answer the window never showed."""
    from storage.chat_index import SqliteChatIndex

    sample_answered(driver, app_url, shots)
    chat_url = driver.current_url
    chat_id = chat_url.split("session=", 1)[1]
    folder = tmp_path / "data" / "workspaces" / chat_id
    with chrome(tmp_path / "second-window") as second:
        open_app(second, chat_url, shots)
        wait_for(second, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"),
                 "the chat in the second window", shots=shots)

        delete_first_listed_chat(driver, shots)
        wait_for(driver, lambda d: not folder.exists(), "the chat's folder removed",
                 shots=shots)

        ask(second, "and for Q3?", shots)
        wait_for(second, lambda d: visible(d, ALERT, "This chat was deleted"),
                 "the notice that the chat was deleted", shots=shots)
        wait_for(second, settled, "the second window settled", shots=shots)
        assert "and for Q3?" in page_text(second)  # the notice quotes the question
        assert "session=" not in second.current_url  # a new chat, made at its first use
        assert not visible(second, f"{CHAT_MESSAGE} h3", "405")
        assert listed_chats(second) == []
    assert not folder.exists()
    assert SqliteChatIndex.in_data_dir(tmp_path / "data").list() == []


def test_a_follow_up_is_answered_and_both_turns_come_back_after_a_reload(app_url, driver,
                                                                           shots):
    sample_answered(driver, app_url, shots)
    ask(driver, "and for Q3?", shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "405"),
             "the follow-up's answer 405", shots=shots)
    wait_for(driver, settled, "the follow-up finished", shots=shots)
    driver.get(driver.current_url)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375")
             and visible(d, f"{CHAT_MESSAGE} h3", "405"), "both answers after a reload",
             shots=shots)
    # The follow-up's reading is in its first step, as written in the transcript.
    assert "and for Q3?" in page_text(driver)
    # ... and a further follow-up still reads the chat's last question after the reload.
    ask(driver, "And the revenue?", shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "710"),
             "the second follow-up's answer 710", shots=shots)


def test_a_screenshot_is_uploaded_asked_and_its_citation_opens_the_image(app_url, driver,
                                                                           shots, tmp_path):
    from bench.ocr_render import font_available, render_table

    if shutil.which("tesseract") is None or not font_available():
        pytest.skip("needs tesseract and DejaVu Sans")
    rows = [["Region", "Q1 2024", "Q2 2024"], ["North", "1,200", "1,350"],
            ["South", "980", "1,010"], ["East", "1,500", "1,620"]]
    path = tmp_path / "sales.png"
    render_table(rows, font_px=16, ruled=True).image.save(path)
    open_app(driver, app_url, shots)
    upload(driver, path, shots)
    ask(driver, "What is the total of Q2 2024?", shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "3,980"), "the answer 3,980",
             shots=shots)
    # The note under the answer renders after its heading: waited for, not read at once.
    wait_for(driver, lambda d: "read from an image" in page_text(d),
             "the note that the cells were read from an image", shots=shots)
    click(driver, lambda d: next(iter(visible(d, "button", "image1!C3")), None),
          "the citation image1!C3", shots=shots)

    def image_shown(d):
        dialog = next(iter(visible(d, '[role="dialog"]')), None)
        if dialog is None:
            return None
        images = [i for i in dialog.find_elements(By.CSS_SELECTOR, '[data-testid="stImage"] img')
                  if i.get_attribute("naturalWidth") not in (None, "0")]
        return (len(images), "Read from this image" in dialog.text,
                sorted(c.get_attribute("data-ref")
                       for c in dialog.find_elements(By.CSS_SELECTOR, "td.tl-cited")))

    wait_value(driver, image_shown, lambda got: got == (1, True, ["C2", "C3", "C4"]),
               "the image with the cited cells outlined, and the cells C2:C4", shots=shots)
    driver.save_screenshot(str(shots / "image-citation.png"))
    assert outside_requests(requested_urls(driver)) == []
