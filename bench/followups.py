"""Follow-up accuracy on the sample P&L: `python -m bench.followups`.

The Sessions issue's cases, asked in one chat through the app's checkpointed graph
(`tablelens/checkpoints.py` over a temporary `app.sqlite`), each after the question before it:
a column swapped ("and for Q3?"), a row ("what about Rent?"), the row after a column swap ("And
the revenue?"), the operation ("and the average?"), and an unrelated question that must inherit
nothing. Then the same first follow-up after a restart (a new checkpointer and graph). Prints
how many come out right and the median time per follow-up against the same question asked
whole, measured interleaved.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from agent.graph import build_graph
from agent.run import answer_question
from bench.cli import parser
from storage.workspace import Workspace
from tablelens.checkpoints import open_checkpointer

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "samples" / "financial.xlsx"
FIRST = "What was the total operating expense for Q2 2024?"
CASES = [  # (message, the values it must give), each after the ones before it
    (FIRST, [375]),
    ("and for Q3?", [405]),
    ("And the revenue?", [710]),
    ("what about Rent?", [55]),
    ("and the average?", [55]),
    ("What was the revenue in Q1?", [500]),  # unrelated: inherits nothing
    ("What about Q4?", [680]),
]
ROUNDS = 15


def main() -> None:
    print("\nFollow-up questions on financial.xlsx (one chat, checkpointed in app.sqlite):")
    with tempfile.TemporaryDirectory(prefix="tablelens-followups-") as tmp:
        root = Path(tmp)
        ws = Workspace(root / "ws")
        try:
            ws.add_file(SAMPLE)
            graph = build_graph(open_checkpointer(root))
            right = 0
            for message, values in CASES:
                got = answer_question(ws, message, graph=graph, thread_id="chat").values
                right += got == values
                verdict = "right" if got == values else f"expected {values}"
                print(f"  {message!r}: {got} ({verdict})")
            answer_question(ws, FIRST, graph=graph, thread_id="restart")
            restarted = build_graph(open_checkpointer(root))
            after = answer_question(ws, "and for Q3?", graph=restarted, thread_id="restart")
            right += after.values == [405]
            print(f"  'and for Q3?' after a restart: {after.values}")
            print(f"  right: {right} of {len(CASES) + 1}")
            follow, whole = [], []
            for _ in range(ROUNDS):
                answer_question(ws, FIRST, graph=graph, thread_id="timed")
                t = time.perf_counter()
                answer_question(ws, "and for Q3?", graph=graph, thread_id="timed")
                follow.append(time.perf_counter() - t)
                t = time.perf_counter()
                answer_question(ws, "What was the total operating expense for Q3?",
                                graph=graph, thread_id="timed")
                whole.append(time.perf_counter() - t)
            f, w = statistics.median(follow) * 1e3, statistics.median(whole) * 1e3
            print(f"  a follow-up takes {f:.1f} ms (median of {ROUNDS}), the same question "
                  f"asked whole {w:.1f} ms: {f / w:.2f}x")
        finally:
            ws.close()


if __name__ == "__main__":
    parser("bench.followups", __doc__).parse_args()
    main()
