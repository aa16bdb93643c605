"""A 60 MB flat CSV ingested against `sqlite-utils insert --csv`, then asked about:
`python -m bench.flat_csv [ROUNDS]` (or `main()` from `python -m bench`).

The file (`workloads.flat_csv`: 640,000 records of 10 fields, 6.4M cells, about 60 MB) is
stored by `Workspace.add_file` with the default limits (a flat table, storage/flat_table.py)
and by sqlite-utils' own CLI code (`sqlite-utils insert DB rows FILE --csv`, called in the
measuring process once its imports are done, as ours are). Each side runs in a fresh process
per round (bench/measure.py), rounds interleaved (bench/rounds.py); the ratio is the median of
the per-round CPU-time ratios. Goals (issue 21): at most 3x sqlite-utils' CPU time, a VmHWM
under 500 MB. The first round keeps its workspace, and the file is then asked about with
`tablelens ask` in new processes: a first question (which computes the table's facts, once
per table), then the same question warm (its `latency_ms`), beside the raw SQL that answers
it over the wide table.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import rawsql, workloads
from bench.cli import parser
from bench.compare import ROOT, run_once
from bench.question_latency import ask, same_answer
from bench.rounds import interleaved, ratio_stats

ROWS = 640_000
OURS, BASELINE = "flat ingest", "sqlite-utils insert"
GOAL_RATIO = 3.0
GOAL_PEAK_MB = 500.0
QUESTION = "What is the city of Customer account 0000007?"
QUESTION_SQL = 'SELECT "city" FROM {wide} WHERE "customer" = \'Customer account 0000007\''
# A lookup, against the raw SQL of one row. (Over these 640k random amounts "which customer has
# the highest amount?" was refused until the rule against rows that mix groups with their
# members let a pair of chance sums among the column's hundreds be data, `_TILED_SHARE` in
# agent/solver.py; it is answered now, in 7.7 s on a loaded 2-core machine.)


def _measure(operation: str, path: Path, keep: Path | None) -> dict[str, Any]:
    """One fresh-process run; `keep` names the workspace our ingest stores into."""
    if keep is None:
        return run_once(operation, str(path))
    env = {**os.environ, "BENCH_WORKSPACE": str(keep)}
    done = subprocess.run([sys.executable, "-m", "bench.measure", operation, str(path)],
                          capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads(done.stdout)


def main(rounds: int = 1) -> None:
    path = workloads.flat_csv(ROWS)
    size_mb = path.stat().st_size / 2**20
    print(f"\nFlat CSV ingest: {ROWS:,} records x {len(workloads.FLAT_COLUMNS)} fields "
          f"({ROWS * len(workloads.FLAT_COLUMNS) / 1e6:.1f}M cells, {size_mb:.0f} MB), "
          f"tablelens `add_file` against `sqlite-utils insert --csv`, {rounds} interleaved "
          f"round(s), each run in a fresh process")
    path.read_bytes()  # into the page cache, so the first run does not pay for the disk alone
    with tempfile.TemporaryDirectory(prefix="tablelens-bench-flat-") as tmp:
        kept = Path(tmp) / "workspace"
        first = {OURS: True}

        def run(operation: str) -> dict[str, Any]:
            keep = kept if first.pop(operation, False) else None
            return _measure(operation, path, keep)

        results = interleaved([OURS, BASELINE], rounds, run)
        if "skipped" in results[BASELINE][0]:
            print(f"  sqlite-utils: skipped ({results[BASELINE][0]['skipped']})")
            return
        ours = [r["cpu_s"] for r in results[OURS]]
        base = [r["cpu_s"] for r in results[BASELINE]]
        stats = ratio_stats(ours, base)
        peak = max(r["peak_mb"] for r in results[OURS])
        print(f"  tablelens    cpu {statistics.median(ours):6.1f} s (rounds: "
              f"{', '.join(f'{v:.1f}' for v in ours)}), wall "
              f"{statistics.median(r['wall_s'] for r in results[OURS]):.1f} s, "
              f"peak memory (VmHWM) {peak:.0f} MB "
              f"({'meets' if peak < GOAL_PEAK_MB else 'misses'} the {GOAL_PEAK_MB:.0f} MB goal)")
        print(f"  sqlite-utils cpu {statistics.median(base):6.1f} s (rounds: "
              f"{', '.join(f'{v:.1f}' for v in base)}), wall "
              f"{statistics.median(r['wall_s'] for r in results[BASELINE]):.1f} s, peak memory "
              f"{max(r['peak_mb'] for r in results[BASELINE]):.0f} MB")
        print(f"  cpu ratio tablelens / sqlite-utils: {stats} "
              f"({'meets' if stats.median <= GOAL_RATIO else 'misses'} the "
              f"{GOAL_RATIO:.0f}x goal)")
        database = kept / "workspace.sqlite"
        print(f"  workspace.sqlite: {database.stat().st_size / 2**20:.0f} MB")
        _answer(path, kept)


def _answer(path: Path, workspace: Path) -> None:
    """Ask one question twice in new processes and compare with the raw SQL."""
    cold, cold_wall = ask(path, workspace, QUESTION)
    warm, _ = ask(path, workspace, QUESTION)
    with rawsql.connect(workspace / "workspace.sqlite") as conn:
        [wide] = conn.execute("SELECT wide FROM catalog").fetchone()
        sql_ms, rows = rawsql.time_sql(conn, QUESTION_SQL.format(wide=f'"{wide}"'), ())
    agrees = warm.get("answer") is not None and same_answer(warm["values"], rows[:1])
    cited = ", ".join(e["ref"] for e in warm.get("evidence", [])[:2])
    print(f"  {QUESTION!r}: {warm.get('answer')!r} citing {cited or 'nothing'} "
          f"({'same as SQL' if agrees else f'SQL says {rows[:1]}'}); warm "
          f"{float(warm['latency_ms']):.0f} ms in a new process (raw SQL {sql_ms:.0f} ms); "
          f"the first question, which computes the table's facts once, "
          f"{float(cold['latency_ms']) / 1000:.1f} s ({cold_wall:.0f} s end to end)")


if __name__ == "__main__":
    cli = parser("bench.flat_csv", __doc__)
    cli.add_argument("rounds", nargs="?", type=int, default=1, help="paired rounds (default: 1)")
    main(cli.parse_args().rounds)
