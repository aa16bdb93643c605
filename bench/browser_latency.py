"""Browser latency: Enter to the first step of the new turn, and to its answer, over 30 turns.

`python -m bench.browser_latency` (or `main()` from `python -m bench`) serves the app on a free
port with a temporary data directory, opens it in headless Chromium, uploads
tests/samples/financial.xlsx and asks QUESTIONS one after another in one chat, each after the
previous turn has finished. The clock runs inside the page (`performance.now()`): it starts at
the keydown of Enter in the chat input and stops when a MutationObserver sees, in the new turn's
assistant message, the first step (a `st.status(type="step")`, `stExpanderStepIcon`) and then
the answer (an `h3` outside the steps) or the reason there is none (an `stAlert` outside the
steps). Times are when the element entered the DOM, so they include the server, the websocket
and React, not the paint.

The goal: median(turns 26-30) of the first step <= 1.3 x median(turns 1-5) or
<= median(turns 1-5) + 50 ms, and < 300 ms: a long chat must not slow down the next question.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from bench.browser_harness import (
    APP,
    ROOT,
    AppDidNotStart,
    WaitTimeout,
    ask,
    chrome,
    make_share_link,
    open_app,
    serve,
    settled,
    unavailable,
    upload,
    wait_for,
)
from bench.cli import parser

SAMPLE = ROOT / "tests" / "samples" / "financial.xlsx"
# 25 varied questions (lookups, totals over rows and half-years, a percentage change; and
# wording the offline engine refuses), then the first five again, so that turns 1-5 and
# 26-30 ask the same things and differ only in how long the chat is.
VARIED = [
    "What was the total operating expense for Q2 2024?",
    "What was Revenue in Q1 2024?",
    "What was the weather in Q2 2024?",
    "What was the Rent in Q3 2024?",
    "Who is the CEO?",
    "What was Net Income in Q4 2024?",
    "What was the total Revenue in H1 2024?",
    "What is the average Marketing across quarters?",
    "What was the highest Revenue quarter?",
    "What was the percentage change in Net Income from Q1 2024 to Q4 2024?",
    "What was the total operating expense for Q4 2024?",
    "What is the difference between Revenue in Q2 2024 and Q1 2024?",
    "What was Marketing in Q2 2024?",
    "What is the ratio of Salaries to Revenue in Q1 2024?",
    "What was the total Net Income in H2 2024?",
    "How many penguins are in the office?",
    "What was the total operating expense for Q1 2024?",
    "What is the minimum Rent?",
    "What was Revenue in Q3 2024?",
    "Which quarter had the lowest Net Income?",
    "What was Rent in H2 2024?",
    "What was Operating Expenses in Q3 2024?",
    "How many quarters had Revenue more than 600?",
    "What was Salaries in Q1 2024 and Rent in Q2 2024?",
    "What was the total Salaries in 2024?",
]
QUESTIONS = VARIED + VARIED[:5]
FIRST, LAST = slice(0, 5), slice(25, 30)
TURN_TIMEOUT_S = 120  # the current code re-renders the whole chat on each turn

# Installed just before Enter: clocks the keydown and the new turn's first step and outcome.
# The new turn's assistant message is the last one on the page, once it is not one of those
# there before Enter (older turns may be redrawn in a shorter form meanwhile, so counting
# messages would not find it).
WATCH_TURN = """
const before = new Set(document.querySelectorAll('[data-testid="stChatMessage"]'));
const turn = {n0: before.size, t0: null, first: null, done: null, outcome: null, step: null,
              reply: null};
window.__tlTurn = turn;
const outside = (el) => !el.closest('[data-testid="stExpander"]');
function onKey(e) { if (e.key === 'Enter' && turn.t0 === null) turn.t0 = performance.now(); }
function check() {
  if (turn.t0 === null) return;
  const messages = document.querySelectorAll('[data-testid="stChatMessage"]');
  let reply = null;
  for (let i = messages.length - 1; i >= 0 && reply === null; i--) {
    if (messages[i].querySelector('[data-testid="stChatMessageAvatarAssistant"]')) {
      reply = before.has(messages[i]) ? undefined : messages[i];
    }
  }
  if (!reply) return;
  const now = performance.now();
  const step = reply.querySelector('[data-testid="stExpanderStepIcon"]');
  if (turn.first === null && step !== null) {
    turn.first = now;
    const summary = step.closest('summary') || step.closest('[data-testid="stExpander"]');
    const label = summary.querySelector('[data-testid="stMarkdownContainer"]') || summary;
    turn.step = label.innerText.replace(/\\s+/g, ' ').slice(0, 80);
    turn.reply = [...messages].indexOf(reply);
  }
  if (turn.done === null) {
    if ([...reply.querySelectorAll('h3')].some(outside)) {
      turn.done = now; turn.outcome = 'answer';
    } else if ([...reply.querySelectorAll('[data-testid="stAlert"]')].some(outside)) {
      turn.done = now; turn.outcome = 'no answer';
    }
  }
  if (turn.first !== null && turn.done !== null) {
    observer.disconnect();
    document.removeEventListener('keydown', onKey, true);
  }
}
const observer = new MutationObserver(check);
document.addEventListener('keydown', onKey, true);
observer.observe(document.body, {childList: true, subtree: true, characterData: true});
"""
TURN_RESULT = """
const t = window.__tlTurn;
if (!t || t.t0 === null || t.first === null || t.done === null) return null;
return {first_ms: t.first - t.t0, answer_ms: t.done - t.t0, outcome: t.outcome,
        first_step: t.step, n0: t.n0, reply: t.reply};
"""
GOAL = ("median(26-30) <= 1.3 x median(1-5) or <= median(1-5) + 50 ms, and < 300 ms")


RESTORED = """
const turns = document.querySelectorAll('[data-testid="stChatMessage"]').length;
return turns >= arguments[0] ? performance.now() : null;
"""
"""When the reloaded page shows every message of the chat: ms since its navigation began."""
PAGE_UP = """
return document.querySelector('[data-testid="stChatInput"]') ? performance.now() : null;
"""
"""When a reloaded page shows its chat input: the page's own load, for comparison."""
RESTORE_GOAL_MS = 1000
def measure(questions: list[str] = QUESTIONS, restore: list[float] | None = None,
            empty: list[float] | None = None, shared: list[float] | None = None
            ) -> list[dict]:
    """Ask the questions in one chat in a fresh app and browser; one timing dict per turn.
    With `restore`, the chat is then reloaded 3 times and the ms until the page shows all its
    messages again are appended to it; with `empty`, the ms until the empty page shows its
    chat input, over 3 reloads before the first upload; with `shared`, a read-only link of the
    chat is made and opened 3 times in a second browser profile (another person), and the ms
    until the shared page shows every message are appended."""
    with tempfile.TemporaryDirectory(prefix="tablelens-browser-bench-") as tmp:
        tmp_path = Path(tmp)
        with (serve(APP, tmp_path / "data", tmp_path / "server.log") as url,
              chrome(tmp_path / "chrome-profile") as drv):
            open_app(drv, url)
            if empty is not None:
                for _ in range(3):
                    drv.refresh()
                    empty.append(wait_for(drv, lambda d: d.execute_script(PAGE_UP),
                                          "the reloaded page", timeout=TURN_TIMEOUT_S))
            upload(drv, SAMPLE)
            turns = []
            for n, question in enumerate(questions, 1):
                ask(drv, question, before_enter=lambda d: d.execute_script(WATCH_TURN))
                got = wait_for(drv, lambda d: d.execute_script(TURN_RESULT),
                               f"turn {n}'s first step and outcome", timeout=TURN_TIMEOUT_S)
                wait_for(drv, settled, f"turn {n} finished", timeout=TURN_TIMEOUT_S)
                turns.append({"question": question, **got})
            if restore is not None:
                messages = len(drv.find_elements("css selector",
                                                 '[data-testid="stChatMessage"]'))
                for _ in range(3):
                    drv.refresh()
                    restore.append(wait_for(drv, lambda d: d.execute_script(RESTORED, messages),
                                            "the restored chat", timeout=TURN_TIMEOUT_S))
            if shared is not None:
                messages = len(drv.find_elements("css selector",
                                                 '[data-testid="stChatMessage"]'))
                token = make_share_link(drv, timeout=TURN_TIMEOUT_S).split("?share=", 1)[1]
                with chrome(tmp_path / "viewer-profile") as viewer:
                    for _ in range(3):
                        viewer.get(f"{url}/?share={token}")
                        shared.append(wait_for(
                            viewer, lambda d: d.execute_script(RESTORED, messages),
                            "the shared chat", timeout=TURN_TIMEOUT_S))
            return turns


def _line(values: list[float]) -> str:
    return " ".join(f"{i}:{v:.0f}" for i, v in enumerate(values, 1))


def summary(name: str, values: list[float], goal: bool) -> str:
    first, last = statistics.median(values[FIRST]), statistics.median(values[LAST])
    text = (f"  {name}: median turns 1-5 {first:.0f} ms, turns 26-30 {last:.0f} ms; "
            f"ratio {last / first:.2f}x, difference {last - first:+.0f} ms")
    if goal:
        holds = (last <= 1.3 * first or last <= first + 50) and last < 300
        text += f"\n  goal ({GOAL}): {'holds' if holds else 'does not hold'}"
    return text


def main() -> int:
    print(f"\nBrowser latency: Enter to the new turn's first step / to its answer, headless "
          f"Chromium, {len(QUESTIONS)} questions in one chat on {SAMPLE.name}")
    reason = unavailable()
    if reason is not None:
        print(f"  skipped: {reason}")
        return 0
    restore: list[float] = []
    empty: list[float] = []
    shared: list[float] = []
    try:
        turns = measure(restore=restore, empty=empty, shared=shared)
    except (AppDidNotStart, WaitTimeout) as exc:
        print(f"  failed: {exc}")
        return 1
    first = [t["first_ms"] for t in turns]
    answer = [t["answer_ms"] for t in turns]
    answered = sum(t["outcome"] == "answer" for t in turns)
    print(f"  first step ms per turn: {_line(first)}")
    print(f"  answer ms per turn:     {_line(answer)}")
    steps = sorted({t["first_step"] for t in turns})
    print(f"  ({answered} answered, {len(turns) - answered} without an answer offline; the "
          f"first step seen: {' / '.join(steps)})")
    print(summary("first step", first, goal=True))
    print(summary("answer", answer, goal=False))
    worst = max(restore)
    print(f"  restoring the chat of {len(turns)} turns (reload until every message shows, "
          f"3 reloads): {', '.join(f'{ms:.0f}' for ms in restore)} ms; worst {worst:.0f} ms "
          f"({'meets' if worst <= RESTORE_GOAL_MS else 'misses'} the {RESTORE_GOAL_MS} ms goal); "
          f"an empty chat's page shows its chat input in "
          f"{', '.join(f'{ms:.0f}' for ms in empty)} ms (Streamlit's own page load)")
    print(f"  opening a read-only link to that chat in another browser profile (until every "
          f"message shows, 3 opens): {', '.join(f'{ms:.0f}' for ms in shared)} ms; worst "
          f"{max(shared):.0f} ms (no goal)")
    return 0


if __name__ == "__main__":
    parser("bench.browser_latency", __doc__).parse_args()
    sys.exit(main())
