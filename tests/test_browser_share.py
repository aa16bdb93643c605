"""End to end in a real headless Chromium: the owner makes a share link, and a second browser
profile (another person, no shared cookies or storage) opens it and sees the step trace and a
citation in its source table, read-only: no chat input, no uploader, no sidebar; the app then
lists none of the owner's chats in that browser.

Uses the served app and the waits of bench/browser_harness.py, as tests/test_browser.py does.
"""

from __future__ import annotations

import pytest

from bench.browser_harness import (
    CHAT_INPUT,
    CHAT_MESSAGE,
    SIDEBAR,
    ask,
    chrome,
    click,
    make_share_link,
    open_app,
    page_text,
    settled,
    unavailable,
    upload,
    visible,
    wait_for,
    wait_value,
)
from storage.chat_index import title_of_question
from tests.test_browser import QUESTION, SAMPLE, sample_answered

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))]

if unavailable() is None:
    from selenium.webdriver.common.by import By


def test_a_second_browser_opens_a_share_link_read_only(app_url, tmp_path, shots):
    with chrome(tmp_path / "owner-profile") as owner:
        open_app(owner, app_url, shots)
        upload(owner, SAMPLE, shots)
        ask(owner, QUESTION, shots)
        wait_for(owner, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"), "the answer 375",
                 shots=shots)
        link = make_share_link(owner, shots)
    token = link.split("?share=", 1)[1]

    with chrome(tmp_path / "viewer-profile") as viewer:
        viewer.get(f"{app_url}/?share={token}")
        wait_for(viewer, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "375"),
                 "the shared answer 375", shots=shots)
        # The trace: every step a <details> whose summary names its node.
        wait_for(viewer, lambda d: visible(d, "details.tl-step summary", "SQL step"),
                 "the shared step trace", shots=shots)
        click(viewer, lambda d: next(iter(visible(d, "details.tl-step summary", "SQL step")),
                                     None), "the SQL step", shots=shots)
        wait_for(viewer, lambda d: "SELECT" in page_text(d), "the SQL of the step",
                 shots=shots)
        click(viewer, lambda d: next(iter(visible(d, "button", "P&L!C6")), None),
              "the citation P&L!C6", shots=shots)

        def highlighted(d):
            dialog = next(iter(visible(d, '[role="dialog"]')), None)
            if dialog is None:
                return None
            return sorted(c.get_attribute("data-ref")
                          for c in dialog.find_elements(By.CSS_SELECTOR, "td.tl-cited"))

        wait_value(viewer, highlighted, lambda got: got == ["C5", "C6", "C7"],
                   "the cited cells highlighted in their table", shots=shots)
        assert not visible(viewer, CHAT_INPUT)
        assert not visible(viewer, '[data-testid="stFileUploaderDropzoneInput"]')
        assert not visible(viewer, f"{SIDEBAR} button")
        assert "Make my own copy" in page_text(viewer)

        # Without login, the viewer's browser does not list the owner's chat (each browser
        # lists the chats it opened, by its own cookie), though the link opened it.
        open_app(viewer, app_url, shots)
        wait_for(viewer, lambda d: visible(d, SIDEBAR, "Your chats will be listed here"),
                 "the viewer's own, empty list of chats", shots=shots)
        assert not visible(viewer, f"{SIDEBAR} button", QUESTION)


def test_a_double_click_on_make_a_read_only_link_makes_one_link(app_url, tmp_path, shots):
    """The second click of a double click reran the page while the first was still making
    its link, which lost that link's URL before it was kept: two live links, one of them
    never shown."""
    from selenium.webdriver.common.action_chains import ActionChains

    from bench.browser_harness import script_idle
    from storage.share_links import SqliteShareLinks

    with chrome(tmp_path / "owner-profile") as owner:
        sample_answered(owner, app_url, shots, "the turn finished")
        chat_id = owner.current_url.split("session=", 1)[1]
        click(owner, lambda d: next(iter(visible(d, f"{SIDEBAR} summary", "Share this chat")),
                                    None), "the share panel", shots=shots)
        button = wait_for(owner, lambda d: next(iter(visible(
            d, f"{SIDEBAR} button", "Make a read-only link")), None), "Make a read-only link",
            shots=shots)
        ActionChains(owner).double_click(button).perform()
        shown = wait_value(owner, lambda d: [c.text.strip() for c in visible(
            d, f'{SIDEBAR} [data-testid="stCode"]') if "?share=" in c.text], bool,
            "the link made", shots=shots)
        wait_for(owner, script_idle, "the clicks' runs ended", shots=shots)
        links = SqliteShareLinks.in_data_dir(tmp_path / "data")
        made = links.for_chat(chat_id)
        assert len(shown) == 1 and len(made) == 1, (shown, made)
        assert links.resolve(shown[0].split("?share=", 1)[1]) == made[0]



SECOND_CLICK_IN_THE_RUN = """
const [button, done] = arguments;
const running = () => [...document.querySelectorAll("[data-test-script-state]")]
  .some(e => e.getAttribute("data-test-script-state") === "running");
button.click();
const asked = Date.now();
(function second() {
  if (running()) { button.click(); done(true); }
  else if (Date.now() - asked > 10000) { done(false); }
  else { setTimeout(second, 2); }
})();
"""
"""Click a button, then click it again as soon as the run the first click asked for has
started: a person's double click lands its second click there whenever the first click's
work takes longer than the gap between the two (Selenium's own double click sends both
before the run starts, and Streamlit folds them into one)."""


def test_a_double_click_on_update_link_makes_one_new_link(app_url, tmp_path, shots):
    """"Update link" made its new link in the button's callback, as "Make a read-only link"
    did: the second click of a double click, landing while the first click's run was under
    way, updated the same old link again, so two new links were live and only one of them
    was ever shown."""
    from bench.browser_harness import script_idle
    from storage.share_links import SqliteShareLinks

    def shown_links(d) -> list[str]:
        return [c.text.strip() for c in visible(d, f'{SIDEBAR} [data-testid="stCode"]')
                if "?share=" in c.text]

    with chrome(tmp_path / "owner-profile") as owner:
        sample_answered(owner, app_url, shots, "the turn finished")
        chat_id = owner.current_url.split("session=", 1)[1]
        first = make_share_link(owner, shots)
        wait_for(owner, script_idle, "the link's run ended", shots=shots)
        button = wait_for(owner, lambda d: next(iter(visible(
            d, f"{SIDEBAR} button", "Update link")), None), "Update link", shots=shots)
        assert owner.execute_async_script(SECOND_CLICK_IN_THE_RUN, button)
        wait_value(owner, shown_links, lambda got: bool(got) and first not in got,
                   "the updated link", shots=shots)
        wait_for(owner, script_idle, "the clicks' runs ended", shots=shots)
        shown = shown_links(owner)
        links = SqliteShareLinks.in_data_dir(tmp_path / "data")
        live = links.for_chat(chat_id)
        assert len(shown) == 1 and len(live) == 1, (shown, live)
        assert links.resolve(shown[0].split("?share=", 1)[1]) == live[0]
        assert links.resolve(first.split("?share=", 1)[1]) is None  # the old link stopped


TRAPS = "<b>Q2</b> **ops** `x` [l](http://evil.example) &lt; a->b :+1: --"
"""A question, and so the chat's title, that Streamlit's Markdown would turn into bold text,
code, a link, "<", an arrow, an emoji and a dash if it were shown as Markdown."""


MARKDOWN = '[data-testid="stMarkdownContainer"]'
TEXT = '[data-testid="stText"]'
SELECTED = """const range = document.createRange();
range.selectNodeContents(arguments[0]);
const selection = window.getSelection();
selection.removeAllRanges();
selection.addRange(range);
return [arguments[0].textContent, selection.toString()];"""


def reads(drv, element, selectable: bool = True) -> str:
    """What the element reads on screen, once its DOM text and a selection of it (what a copy
    takes) are checked to be the same, nothing unseen in them; a button's label is not
    selectable, so only its DOM text is checked."""
    text, copied = drv.execute_script(SELECTED, element)
    assert text == element.text, (text, element.text)
    if selectable:
        assert copied == text, (copied, text)
    return text


def test_a_title_and_a_question_show_and_copy_as_typed_never_as_a_link(app_url, tmp_path,
                                                                       shots):
    """A chat renamed "... [link](http://evil.example) ..." was a live link on the share page
    and read "...evil.example\\)" in the sidebar; "--" in a question read as a dash. Then
    the WORD JOINERs (U+2060) that kept them literal went into every copy of them."""
    with chrome(tmp_path / "owner-profile") as owner:
        open_app(owner, app_url, shots)
        upload(owner, SAMPLE, shots)
        ask(owner, TRAPS, shots)
        wait_for(owner, lambda d: visible(d, f"{SIDEBAR} button", "Q2"), "the chat's title",
                 shots=shots)
        wait_for(owner, lambda d: settled(d) and len(visible(d, CHAT_MESSAGE)) >= 3,
                 "the reply", shots=shots)
        [question] = wait_for(owner, lambda d: visible(d, f"{CHAT_MESSAGE} {TEXT}", "Q2"),
                              "the question", shots=shots)
        assert reads(owner, question) == TRAPS
        [title] = visible(owner, f"{SIDEBAR} button {MARKDOWN}", "Q2")
        # Cut to its first 60 characters.
        assert reads(owner, title, selectable=False) == title_of_question(TRAPS)
        assert not owner.find_elements(By.CSS_SELECTOR, "a[href*='evil']")
        link = make_share_link(owner, shots)

    with chrome(tmp_path / "viewer-profile") as viewer:
        viewer.get(link)
        wait_for(viewer, lambda d: visible(d, "h1", "Q2"), "the shared chat's title",
                 shots=shots)
        [heading] = visible(viewer, "h1", "Q2")
        assert reads(viewer, heading) == title_of_question(TRAPS)
        assert not heading.find_elements(By.CSS_SELECTOR, "a")
        # The heading comes first: the turns are drawn after it.
        [question] = wait_for(viewer, lambda d: visible(d, f"{CHAT_MESSAGE} {TEXT}", "Q2"),
                              "the shared question", shots=shots)
        assert reads(viewer, question) == TRAPS
        assert not viewer.find_elements(By.CSS_SELECTOR, "a[href*='evil']")
