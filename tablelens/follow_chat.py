"""Keep the newest chat message in view, as chat apps do.

Streamlit appends each step and the answer below the page's fold and never scrolls: from the
second question on, an answer arrived out of sight. This script, run once in the page (not in
a component's frame, so it sees the chat), follows the chat's growth while the reader is at
the bottom; scrolling up to read an earlier turn stops it, and sending a question (Enter or
the send arrow in the chat box) or coming back to the bottom starts it again.
"""

from __future__ import annotations

import streamlit as st

SCRIPT = """<script>
(() => {
  if (window.tablelensFollows) return;
  window.tablelensFollows = true;
  const NEAR = 80;  // px from the bottom that still counts as "at the bottom"
  let follow = true;
  const scroller = () => {
    const messages = document.querySelectorAll('[data-testid="stChatMessage"]');
    let el = messages.length ? messages[messages.length - 1].parentElement : null;
    for (; el; el = el.parentElement) {
      const overflow = getComputedStyle(el).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight) {
        return el;
      }
    }
    return document.scrollingElement;
  };
  let ours = false;  // a scroll this script made is not the reader's
  document.addEventListener("scroll", (event) => {
    if (ours) { ours = false; return; }
    const el = event.target === document ? document.scrollingElement : event.target;
    if (el && el === scroller()) {
      follow = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR;
    }
  }, true);
  const sent = (event) => {
    const box = event.target.closest && event.target.closest('[data-testid="stChatInput"]');
    if (box && (event.type === "click" || event.key === "Enter")) follow = true;
  };
  document.addEventListener("keydown", sent, true);
  document.addEventListener("click", sent, true);
  new MutationObserver(() => {
    const el = scroller();
    if (!follow || !el || el.scrollHeight - el.scrollTop - el.clientHeight < 1) return;
    ours = true;
    el.scrollTop = el.scrollHeight;
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
})();
</script>"""


def follow_newest_message() -> None:
    """Install the script (once per page; later runs find it there)."""
    st.html(SCRIPT, unsafe_allow_javascript=True)
