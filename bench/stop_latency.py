"""Stop latency inside a step: `python -m bench.stop_latency`.

On a 100k-row table (a CSV of 100,000 rows and 3 columns, ingested without being readied, so
that its first question computes the table's facts and runs for seconds), the question is
first run to its end to time it; then it is started again and again in a fresh workspace
copy, and Stop (the run's cancel flag) is set at points spread over that time, from the first
step to the last. The figure is the time from Stop to the run's end, its median and worst over
the points. Goal (issue 14): within 300 ms inside every step.

Then ingest: a 1M-cell CSV and a 300k-cell workbook are uploaded as the app does
(`agent.prepare.add_prepared`: read, store, get ready for questions), and Stop (the upload's
cancel flag) is set 0.2 s and 1 s into each of its stages (reading, structure and cells,
views and search index, getting ready): a stop at fixed times would land in the longest
stage only. The figure is the time from Stop to the upload raising `IngestStopped`, median
and worst, against the same 300 ms goal; after each stop the
workspace is checked to hold nothing of the file (no row, table, view or file copy).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.cli import parser

GOAL_MS = 300.0
ROWS = 100_000
FRACTIONS = (0.01, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95)
"""Where Stop is pressed, as shares of the whole run's time."""
INGEST_STAGES = ("reading", "structure", "views", "getting ready")
"""The upload's stages as its progress names them (their first words)."""
INGEST_OFFSETS_S = (0.2, 1.0)
"""When Stop is pressed, counted from the start of each stage."""
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
        print(_verdict("Stop to end", waits))


def leftovers(workspace) -> dict[str, object]:
    """Everything an upload could leave: the schema, every table's rows, the file copies."""
    names = sorted(tuple(row) for row in workspace.db.conn.execute(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))
    counts = {name: workspace.db.conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
              for kind, name in names if kind == "table"}
    return {"schema": names, "rows": counts,
            "files": sorted(p.name for p in workspace.files_dir.iterdir())}


def _stop_upload(path: Path, folder: Path, stage_name: str, delay_s: float
                 ) -> tuple[float | None, str, bool]:
    """Upload `path` into a fresh workspace and press Stop `delay_s` into the stage whose
    progress text starts with `stage_name`; return the ms from Stop to the upload's end
    (None: it ended first), the stage it was in, and whether the workspace was left as it
    was."""
    from agent.prepare import add_prepared
    from ingest.errors import IngestStopped
    from storage.workspace import Workspace

    workspace = Workspace(folder / f"ingest-{path.suffix[1:]}-{stage_name}-{delay_s}")
    before = leftovers(workspace)
    flag = threading.Event()
    began = threading.Event()  # the stage has begun
    done = threading.Event()
    stopped_at: list[float] = []
    stage = ["-"]

    def progress(fraction: float, now: str) -> None:
        stage[0] = now
        if now.startswith(stage_name):
            began.set()

    def press_stop() -> None:
        while not began.wait(0.01):
            if done.is_set():
                return
        if not done.wait(delay_s):
            stopped_at.append(time.perf_counter())
            flag.set()

    presser = threading.Thread(target=press_stop)
    presser.start()
    try:
        add_prepared(workspace, path, progress=progress, cancel=flag)
        ended = None
    except IngestStopped:
        ended = time.perf_counter()
    done.set()  # ends the presser at once if the upload finished first
    presser.join()
    clean = leftovers(workspace) == before
    workspace.close()
    if ended is None or not stopped_at:
        return None, stage[0], clean
    return (ended - stopped_at[0]) * 1000, stage[0], clean


def ingest_main() -> None:
    from bench import workloads

    files = {"csv": (workloads.csv_1m(), "a 1M-cell CSV"),
             "xlsx": (workloads.sized_workbook(workloads.OUT, 300_000),
                      "a 300k-cell workbook")}
    waits: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tablelens-bench-ingest-stop-") as tmp:
        for path, title in files.values():
            print(f"Stop latency of an upload of {title} (Stop pressed "
                  f"{' and '.join(f'{d:g}' for d in INGEST_OFFSETS_S)} s into each stage):")
            for stage_name in INGEST_STAGES:
                for delay in INGEST_OFFSETS_S:
                    wait_ms, stage, clean = _stop_upload(path, Path(tmp), stage_name, delay)
                    left = "nothing stored" if clean else "LEFT SOMETHING IN THE WORKSPACE"
                    at = f"{delay:g} s into {stage_name}"
                    if wait_ms is None:
                        print(f"  Stop {at}: the stage or the upload had ended ({left})")
                        continue
                    waits.append(wait_ms)
                    print(f"  Stop {at}: upload ended {wait_ms:.0f} ms later, while {stage} "
                          f"({left})")
    if not waits:
        print("  no upload was still going when Stop was pressed: nothing measured")
        return
    print(_verdict("Stop to the upload's end", waits))


def _verdict(what: str, waits: list[float]) -> str:
    """The median and worst wait against the goal, as one line."""
    worst = max(waits)
    verdict = "meets" if worst <= GOAL_MS else "misses"
    return (f"  {what}: median {statistics.median(waits):.0f} ms, worst {worst:.0f} ms over "
            f"{len(waits)} stops ({verdict} the {GOAL_MS:.0f} ms goal)")


if __name__ == "__main__":
    parser("bench.stop_latency", __doc__).parse_args()
    main()
    ingest_main()
