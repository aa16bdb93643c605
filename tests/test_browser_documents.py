"""End to end in headless Chromium: upload a .docx, ask about its prose, and open the text
citation: the passage shows with the cited span highlighted. Skipped without Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.browser_harness import (
    CHAT_MESSAGE,
    ask,
    chrome,
    click,
    open_app,
    settled,
    unavailable,
    upload,
    visible,
    wait_for,
    wait_value,
)
from tests.documents_samples import docx_bytes

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))]

if unavailable() is None:
    from selenium.webdriver.common.by import By


@pytest.fixture
def driver(tmp_path):
    with chrome(tmp_path / "chrome-profile") as drv:
        yield drv


def test_upload_a_docx_and_open_a_text_citation(app_url, driver, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    doc = tmp_path / "staff.docx"
    doc.write_bytes(docx_bytes())
    open_app(driver, app_url, shots)
    upload(driver, doc, shots)
    ask(driver, "How many employees did the company have at the end of June?", shots)
    wait_for(driver, lambda d: visible(d, f"{CHAT_MESSAGE} h3", "42"), "the answer 42",
             shots=shots)
    # A click while the page still reruns (the answer just came) can land on a pill that is
    # being replaced: click once the page has settled.
    wait_for(driver, settled, "the page to settle", shots=shots)
    click(driver, lambda d: next(iter(visible(d, "button", "staff.docx, paragraph 2")), None),
          "the text citation", shots=shots)

    def cited(d):
        dialog = next(iter(visible(d, '[role="dialog"]')), None)
        if dialog is None:
            return None
        marks = dialog.find_elements(By.CSS_SELECTOR, "mark.tl-cited")
        passage = dialog.find_elements(By.CSS_SELECTOR, ".tl-passage")
        return ([m.text for m in marks], passage[0].text if passage else "")

    wait_value(driver, cited, lambda got: got is not None and got[0] == [
        "The company had 42 employees at the end of June."]
        and got[1].endswith("Most of them work in the Oslo office."),
        "the passage with the cited sentence highlighted", shots=shots)
    driver.save_screenshot(str(shots / "text-citation.png"))
