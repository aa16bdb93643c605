"""Stop latency inside a step: `python -m bench.stop_latency`.

On a 100k-row table (a CSV of 100,000 rows and 3 columns, ingested without being readied, so
that its first question computes the table's facts and runs for seconds), the question is
first run to its end to time it; then it is started again and again in a fresh workspace
copy, and Stop (the run's cancel flag) is set at points spread over that time, from the first
step to the last. The figure is the time from Stop to the run's end, its median and worst over
the points. Goal (issue 14): within 300 ms inside every step.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

GOAL_MS = 300.0
ROWS = 100_000
FRACTIONS = (0.01, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95)
"""Where Stop is pressed, as shares of the whole run's time."""
QUESTION = "What is the total Sales?"


def _table(folder: Path) -> Path:
    lines = ["Item,Sales,Cost"] + [f"Item {i},{i * 7 % 1000},{i % 13}" for i in range(ROWS)]
    path = folder / "long.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _stop_after(template: Path, folder: Path, delay_s: float | None
                ) -> tuple[float, str, str]:
    """Ask on a copy of the un-readied workspace, press Stop after `delay_s` (None: never);
    return the ms from Stop to the run's end (from the start, without a Stop), the last
    step's node and how the run ended."""
    from agent.run import answer_question
    from storage.workspace import Workspace

    copy = folder / f"ws-{delay_s}"
    shutil.copytree(template, copy)
    workspace = Workspace(copy)
    flag = threading.Event()
    stopped_at: list[float] = []

    def press_stop() -> None:
        time.sleep(delay_s)
        stopped_at.append(time.perf_counter())
        flag.set()

    presser = threading.Thread(target=press_stop)
    if delay_s is None:
        stopped_at.append(time.perf_counter())
    else:
        presser.start()
    answer = answer_question(workspace, QUESTION, cancel=flag)
    ended = time.perf_counter()
    if delay_s is not None:
        presser.join()
    workspace.close()
    kind = answer.error.kind if answer.error else "answered"
    node = answer.steps[-1].node if answer.steps else "-"
    return (ended - stopped_at[0]) * 1000 if ended >= stopped_at[0] else 0.0, node, kind


def main() -> None:
    from storage.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="tablelens-bench-stop-") as tmp:
        folder = Path(tmp)
        template = folder / "template"
        workspace = Workspace(template)
        workspace.add_file(_table(folder))
        workspace.close()
        whole_ms, _, kind = _stop_after(template, folder, None)
        delays = [round(whole_ms / 1000 * share, 2) for share in FRACTIONS]
        print(f"Stop latency on a {ROWS:,}-row table whose first question computes its facts "
              f"({whole_ms / 1000:.1f} s to {kind} without Stop; Stop pressed at "
              f"{', '.join(f'{d:g}' for d in delays)} s):")
        waits = []
        for delay in delays:
            wait_ms, node, kind = _stop_after(template, folder, delay)
            ran = "stopped" if kind == "cancelled" else f"ended before Stop ({kind})"
            print(f"  Stop at {delay:g} s: run ended {wait_ms:.0f} ms later, in {node} ({ran})")
            if kind == "cancelled":
                waits.append(wait_ms)
        if not waits:
            print("  no run was still going when Stop was pressed: nothing measured")
            return
        worst = max(waits)
        verdict = "meets" if worst <= GOAL_MS else "misses"
        print(f"  Stop to end: median {statistics.median(waits):.0f} ms, worst {worst:.0f} ms "
              f"over {len(waits)} stops ({verdict} the {GOAL_MS:.0f} ms goal)")


if __name__ == "__main__":
    main()
