"""Paired comparisons of readers: baselines and ours, interleaved over the same rounds, each
run of each operation in a fresh process (`bench.measure`), ratios taken within a round.

A candidate's goal is a ratio: at most `goal` times each baseline's time, judged on the median
of the per-round ratios, in wall time and in CPU time (CPU time is less moved by the other
work on a shared machine; wall time is what a user waits).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

from bench.rounds import interleaved, ratio_stats

ROOT = Path(__file__).resolve().parents[1]

Result = dict[str, float | str]


def run_once(operation: str, path: str) -> Result:
    """One run of one operation in a fresh process."""
    done = subprocess.run([sys.executable, "-m", "bench.measure", operation, path],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def verdict(ratio: float, goal: float) -> str:
    return "meets" if ratio <= goal else "misses"


def measure_rounds(operations: list[str], path: str, rounds: int) -> dict[str, list[Result]]:
    """Every operation once per round, interleaved; a baseline that says it is skipped in the
    first round is not run again."""
    Path(path).read_bytes()  # into the page cache, so round 1 does not pay for the disk alone
    first = interleaved(operations, 1, lambda op: run_once(op, path))
    kept = [op for op in operations if "skipped" not in first[op][0]]
    rest = interleaved(kept, rounds - 1, lambda op: run_once(op, path))
    return {op: first[op] + rest.get(op, []) for op in operations}


def compare(title: str, path: str, baselines: list[str], goals: dict[str, float],
            rounds: int = 5) -> None:
    """Print each operation's medians, then every candidate / baseline ratio against its goal.

    `goals` maps each of our operations to its goal ratio, which holds against every baseline.
    """
    print(f"\n{title}\n  {rounds} rounds; in each, every operation once, in this order, each "
          "in a fresh process")
    results = measure_rounds(baselines + list(goals), path, rounds)
    print(f"  {'operation (median of rounds)':<30} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} "
          f"{'+MB in op':>9}   (memory: VmHWM; no goal set)")
    for op, runs in results.items():
        if "skipped" in runs[0]:
            print(f"  {op:<30} skipped: {runs[0]['skipped']}")
            continue
        med = {k: statistics.median(float(r[k]) for r in runs)
               for k in ("wall_s", "cpu_s", "peak_mb", "extra_mb")}
        print(f"  {op:<30} {med['wall_s']:7.3f} {med['cpu_s']:7.3f} {med['peak_mb']:8.1f} "
              f"{med['extra_mb']:9.1f}")
    print(f"  {'ours / baseline, per-round ratio':<34} {'wall: median [min-max]':<23} "
          f"{'cpu: median [min-max]':<23} goal")
    for op, goal in goals.items():
        for base in baselines:
            if "skipped" in results[base][0]:
                continue
            wall, cpu = (ratio_stats([float(r[key]) for r in results[op]],
                                     [float(r[key]) for r in results[base]])
                         for key in ("wall_s", "cpu_s"))
            print(f"  {op + ' / ' + base:<34} {wall!s:<23} {cpu!s:<23} <= {goal}x: "
                  + both_verdicts(wall.median, cpu.median, goal))


def both_verdicts(wall: float, cpu: float, goal: float) -> str:
    """One word when wall and CPU time agree, else each named."""
    if verdict(wall, goal) == verdict(cpu, goal):
        return verdict(wall, goal)
    return f"{verdict(wall, goal)} in wall time, {verdict(cpu, goal)} in cpu time"
