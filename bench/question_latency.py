"""Question latency against raw SQL: `python -m bench.question_latency` (or `main()` from
`python -m bench`; `python -m bench.question_latency 10000` for one size).

On workbooks of 10k, 100k and 1M data cells of one shape (`workloads.sized_workbook`: an "Item"
label column, then 10 regions of 5 quarters), ingested once into a workspace by a first
`tablelens ask --workspace DIR`, five questions (lookup, sum, max, average, "which ... the
highest") are each timed warm two ways, in three rounds that interleave them with the raw SQL
(the medians are printed, with the range over the rounds):

- new process: the next `tablelens ask --workspace DIR` in a new process; the figure is its
  `latency_ms`, the question alone (the process's imports, the workspace opening and the
  file's re-hash are not in it; the process's whole wall time is shown beside it);
- in process: one child process asks a question outside the five first, then each of the five
  (the second question in the app);

against the raw SQL over the wide view that answers it (bench/rawsql.py). The goal (issue 13):
a warm question takes at most 20 ms + 3x its raw SQL. Each answer is also checked against the
SQL's result, and the size of its `ask --json` answer is held to 20 KB whatever the table's
size (an aggregate cites its cells as a few ends and a set of ranges, not one by one).
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import rawsql, workloads
from bench.cli import parser

ROOT = Path(__file__).resolve().parents[1]
SIZES = (10_000, 100_000, 1_000_000)
GOAL_FIXED_MS = 20.0
GOAL_SQL_FACTOR = 3.0
ANSWER_BYTES_GOAL = 20_000
ROUNDS = 3
"""Rounds of every measurement at each size; the figures printed are their medians."""
WARM_UP = "What is Q1 of Region 0 for Item 1?"


@dataclass(frozen=True)
class Question:
    kind: str
    text: str
    column: tuple[str, str]
    """The header path of the column the question is about."""
    sql: str
    """Over the wide view: {wide}, {label} (the row label column) and {column} filled in."""
    params: tuple[Any, ...] = ()


QUESTIONS = (
    Question("lookup", "What is Q2 of Region 1 for Item 7?", ("Region 1", "Q2"),
             "SELECT {column} FROM {wide} WHERE {label} = ?", ("Item 7",)),
    Question("sum", "What is the total Q3 of Region 2?", ("Region 2", "Q3"),
             "SELECT SUM({column}) FROM {wide}"),
    Question("max", "What is the highest Q1 of Region 4?", ("Region 4", "Q1"),
             "SELECT MAX({column}) FROM {wide}"),
    Question("average", "What is the average Q4 of Region 5?", ("Region 5", "Q4"),
             "SELECT AVG({column}) FROM {wide}"),
    Question("which", "Which item has the highest Q5 of Region 6?", ("Region 6", "Q5"),
             "SELECT {label} FROM {wide} ORDER BY {column} DESC LIMIT 1"),
)


def goal_ms(sql_ms: float) -> float:
    return GOAL_FIXED_MS + GOAL_SQL_FACTOR * sql_ms


def verdict(ms: float, sql_ms: float) -> str:
    return "meets" if ms <= goal_ms(sql_ms) else "misses"


def same_answer(values: list[Any], rows: list[tuple[Any, ...]]) -> bool:
    """The engine's single value equals the SQL's single result (numbers to 1e-9)."""
    if len(values) != 1 or len(rows) != 1 or len(rows[0]) != 1:
        return False
    got, want = values[0], rows[0][0]
    if isinstance(got, int | float) and isinstance(want, int | float):
        return math.isclose(got, want, rel_tol=1e-9)
    return str(got) == str(want)


def bound_sql(database: Path, question: Question) -> str:
    """The question's SQL with the wide view's names, read from the catalog."""
    from sqlite_utils import Database
    from sqlite_utils.db import quote_identifier

    from storage.views import read_catalog

    with rawsql.connect(database) as conn:
        [table] = read_catalog(Database(conn))
    [name] = [c.name for c in table.columns if c.path == question.column]
    return question.sql.format(wide=quote_identifier(table.wide),
                               label=quote_identifier(table.row_levels[0]),
                               column=quote_identifier(name))


def ask(path: Path, workspace: Path, question: str) -> tuple[dict[str, Any], float]:
    """`tablelens ask --json` in a new process: (its answer, the process's wall seconds); the
    answer's size in bytes is kept under "_bytes"."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tablelens.cli", "ask", str(path),
                           "--workspace", str(workspace), "-q", question, "--json"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    answer = json.loads(done.stdout)
    answer["_bytes"] = len(done.stdout.encode("utf-8"))
    return answer, time.perf_counter() - start


def size_verdict(size: int) -> str:
    """An answer's JSON size against its goal."""
    return "meets" if size <= ANSWER_BYTES_GOAL else "misses"


def in_process(workspace: Path) -> list[dict[str, Any]]:
    """In a child process: a first question, then each of QUESTIONS, timed (`--in-process`)."""
    done = subprocess.run([sys.executable, "-m", "bench.question_latency", "--in-process",
                           str(workspace)], capture_output=True, text=True, check=True,
                          cwd=ROOT)
    return json.loads(done.stdout)


def _child(workspace: Path) -> list[dict[str, Any]]:
    from agent.run import answer_question
    from storage.workspace import Workspace

    ws = Workspace(workspace)
    try:
        answer_question(ws, WARM_UP)
        timed = []
        for question in QUESTIONS:
            start = time.perf_counter()
            answer = answer_question(ws, question.text)
            timed.append({"ms": (time.perf_counter() - start) * 1000, "values": answer.values})
        return timed
    finally:
        ws.close()


def outcome(answer: dict[str, Any], rows: list[tuple[Any, ...]]) -> str:
    if answer.get("answer") is None:
        return "refused"
    return "same as SQL" if same_answer(answer["values"], rows) else \
        f"differs: {answer['values']} vs SQL {rows}"


def size_section(cells: int, folder: Path) -> None:
    path = workloads.sized_workbook(workloads.OUT, cells)
    workspace = folder / f"ws_{cells}"
    first, _ = ask(path, workspace, WARM_UP)
    database = workspace / "workspace.sqlite"
    print(f"  {cells:,} data cells ({cells // workloads.DATA_COLUMNS:,} rows x "
          f"{workloads.DATA_COLUMNS} columns): ingested once in {first['ingest_ms'] / 1000:.1f} s"
          " by the first ask (no goal)")
    # Each round runs the in-process child (all five questions), then for each question
    # the raw SQL and a new process, so that a busy moment of the machine falls on every
    # kind of figure in turn; each figure printed is the median over the rounds.
    sql: dict[str, list[float]] = {q.kind: [] for q in QUESTIONS}
    new: dict[str, list[float]] = {q.kind: [] for q in QUESTIONS}
    kept: dict[str, list[float]] = {q.kind: [] for q in QUESTIONS}
    outcomes: dict[str, list[str]] = {q.kind: [] for q in QUESTIONS}
    sizes: dict[str, list[int]] = {q.kind: [] for q in QUESTIONS}
    walls = []
    for _ in range(ROUNDS):
        for question, child in zip(QUESTIONS, in_process(workspace), strict=True):
            with rawsql.connect(database) as conn:
                sql_ms, rows = rawsql.time_sql(conn, bound_sql(database, question),
                                               question.params)
            answer, wall = ask(path, workspace, question.text)
            walls.append(wall)
            sql[question.kind].append(sql_ms)
            new[question.kind].append(float(answer["latency_ms"]))
            kept[question.kind].append(child["ms"])
            outcomes[question.kind].append(outcome(answer, rows))
            sizes[question.kind].append(answer["_bytes"])
    for question in QUESTIONS:
        kind = question.kind
        sql_ms = statistics.median(sql[kind])
        new_ms, kept_ms = statistics.median(new[kind]), statistics.median(kept[kind])
        # Every round's answer is checked: one that differed is shown.
        said = next((o for o in outcomes[kind] if o != "same as SQL"), "same as SQL")
        print(f"    {kind:<8} {sql_ms:8.3f} ms {goal_ms(sql_ms):7.1f} ms "
              f"{new_ms:6.0f} ms {spread(new[kind])} {verdict(new_ms, sql_ms):<6} "
              f"{kept_ms:6.0f} ms {spread(kept[kind])} {verdict(kept_ms, sql_ms):<6} "
              f"{said}; answer {max(sizes[kind]) / 1000:.1f} KB "
              f"{size_verdict(max(sizes[kind]))}")
    print(f"    (each new `ask` process took {min(walls):.1f}-{max(walls):.1f} s end to end: "
          "imports, opening the workspace, re-hashing the file, then the question)")


def spread(values: list[float]) -> str:
    """The range of a figure over the rounds, e.g. "(21-26)"."""
    return f"({min(values):3.0f}-{max(values):3.0f})"


def main(sizes: tuple[int, ...] = SIZES) -> None:
    print("\nQuestion latency against raw SQL over the wide view (goal: a warm question "
          f"<= {GOAL_FIXED_MS:.0f} ms + {GOAL_SQL_FACTOR:.0f}x its raw SQL)")
    for question in QUESTIONS:
        print(f"  {question.kind:<8} {question.text!r}")
    print("  warm, new process: the next `tablelens ask --workspace DIR` (its latency_ms); "
          "in process: after a first question")
    print(f"  medians of {ROUNDS} interleaved rounds, the range over the rounds in brackets")
    print(f"    {'question':<8} {'raw SQL':>11} {'goal':>10}  {'new process':<25} "
          f"{'in process':<25} answer (its largest `ask --json` size: goal "
          f"{ANSWER_BYTES_GOAL / 1000:.0f} KB)")
    with tempfile.TemporaryDirectory(prefix="tablelens-bench-q-") as tmp:
        for cells in sizes:
            start = time.perf_counter()
            size_section(cells, Path(tmp))
            print(f"    ({cells:,} cells: this part took {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    cli = parser("bench.question_latency", __doc__)
    cli.add_argument("sizes", nargs="*", type=int, metavar="CELLS",
                     help=f"data cells of each workbook (default: {', '.join(map(str, SIZES))})")
    cli.add_argument("--in-process", type=Path, metavar="WORKSPACE",
                     help="(used by the benchmark itself) time the questions in this process")
    args = cli.parse_args()
    if args.in_process:
        print(json.dumps(_child(args.in_process)))
    else:
        main(tuple(args.sizes) or SIZES)
