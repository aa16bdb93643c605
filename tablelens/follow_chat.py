"""Keep the newest chat message in view, as chat apps do.

Streamlit appends each step and the answer below the page's fold and never scrolls. This
script, run once in the page (not in a component's frame, so it sees the chat), keeps the end
of the newest message just above the chat box while the reader is there; scrolling away from
it, up to read an earlier turn or down the workspace panel, stops it, and sending a question
(Enter or the send arrow in the chat box) starts it again.

It follows the message, not the page's end: beside the chat (or under it, on a narrow
window) the workspace panel of a few files is taller than the chat, and the page's end is
the panel's, so following that took the newest turn out of view above (measured with four
files at 1500x1250: the question's top at y = -1004 in a 1107 px viewport).
"""

from __future__ import annotations

import streamlit as st

SCRIPT = """<script>
(() => {
  if (window.tablelensFollows) return;
  window.tablelensFollows = true;
  const NEAR = 80;  // px past the chat box's top that still counts as "at the newest message"
  const GAP = 16;  // px left between the message's end and the chat box
  let follow = true;
  const newest = () => {
    const messages = document.querySelectorAll('[data-testid="stChatMessage"]');
    const last = messages.length ? messages[messages.length - 1] : null;
    // On the Workspace tab (full width) the chat is hidden: nothing to follow there.
    return last && last.getClientRects().length ? last : null;
  };
  const scroller = (message) => {
    for (let el = message.parentElement; el; el = el.parentElement) {
      const overflow = getComputedStyle(el).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight) {
        return el;
      }
    }
    return document.scrollingElement;
  };
  // What the reader sees of the scroller: from its top to the chat box, which covers the rest.
  const view = (el) => {
    const box = el === document.scrollingElement
      ? {top: 0, bottom: window.innerHeight} : el.getBoundingClientRect();
    const input = document.querySelector('[data-testid="stBottom"]');
    const bottom = input && input.getClientRects().length
      ? Math.min(box.bottom, input.getBoundingClientRect().top) : box.bottom;
    return {top: box.top, bottom: bottom};
  };
  let ours = false;  // a scroll this script made is not the reader's
  document.addEventListener("scroll", (event) => {
    if (ours) { ours = false; return; }
    const message = newest();
    const el = event.target === document ? document.scrollingElement : event.target;
    if (message && el && el === scroller(message)) {
      const end = message.getBoundingClientRect().bottom, seen = view(el);
      follow = end > seen.top && end < seen.bottom + NEAR;
    }
  }, true);
  const sent = (event) => {
    const box = event.target.closest && event.target.closest('[data-testid="stChatInput"]');
    if (box && (event.type === "click" || event.key === "Enter")) follow = true;
  };
  document.addEventListener("keydown", sent, true);
  document.addEventListener("click", sent, true);
  new MutationObserver(() => {
    const message = follow && newest();
    if (!message) return;
    const el = scroller(message), seen = view(el);
    const end = message.getBoundingClientRect().bottom;
    // Below the chat box, or gone above the view: bring its end just above the chat box.
    if (end <= seen.bottom - GAP + 1 && end > seen.top) return;
    const before = el.scrollTop;
    el.scrollTop += end - (seen.bottom - GAP);
    if (el.scrollTop !== before) ours = true;
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
})();
</script>"""


def follow_newest_message() -> None:
    """Install the script (once per page; later runs find it there)."""
    st.html(SCRIPT, unsafe_allow_javascript=True)
