"""Full ingest against `pandas.read_excel` (openpyxl engine) on the 100k and 1M workbooks, and
the ingest's peak memory per cell: `python -m bench.ingest_speed [ROUNDS_100K [ROUNDS_1M]]`.

The goals (issue 21, item 1): the ingest (read, HO-Tree, typed values, SQLite cells, views,
search index) at most 1.0x pandas' time, judged on the median per-round ratio of paired,
interleaved rounds (bench/compare.py), and a peak (VmHWM, imports included) of at most
0.35 KB per filled cell.
"""

from __future__ import annotations

import statistics

from bench import compare, workloads
from bench.cli import parser
from bench.rounds import ratio_stats

TIME_GOAL = 1.0
"""Ingest time over pandas.read_excel's, in wall and in CPU time."""
KB_PER_CELL_GOAL = 0.35



def filled_cells(rows: int) -> int:
    """A workload workbook's filled cells: each row's label and data cells, then the merged
    region names and the quarter names of the two header rows."""
    return rows * (workloads.DATA_COLUMNS + 1) + workloads.REGIONS + workloads.DATA_COLUMNS


def main(argv: list[str]) -> None:
    rounds = [int(a) for a in argv] + [5, 3][len(argv):]
    print("Full ingest against pandas.read_excel (openpyxl engine), paired rounds, each run in "
          f"a fresh process; goals: at most {TIME_GOAL}x in wall and CPU time, peak memory "
          f"(VmHWM) at most {KB_PER_CELL_GOAL} KB per filled cell")
    for (size, path, rows), n in zip((("100k", workloads.workbook_100k(), 2_000),
                                      ("1M", workloads.workbook_1m(), 20_000)), rounds,
                                     strict=True):
        results = compare.measure_rounds(["pandas.read_excel", "ingest"], str(path), n)
        ours, base = results["ingest"], results["pandas.read_excel"]
        wall, cpu = (ratio_stats([float(r[key]) for r in ours], [float(r[key]) for r in base])
                     for key in ("wall_s", "cpu_s"))
        peak, rise = (statistics.median(float(r[key]) for r in ours)
                      for key in ("peak_mb", "extra_mb"))
        per_cell = peak * 1024 / filled_cells(rows)
        cpu_s = [statistics.median(float(r["cpu_s"]) for r in runs) for runs in (ours, base)]
        print(f"  {size} ({n} rounds): ingest {cpu_s[0]:.2f} s cpu, pandas {cpu_s[1]:.2f} s; "
              f"ratio wall {wall}, cpu {cpu}: "
              + compare.both_verdicts(wall.median, cpu.median, TIME_GOAL))
        # The imports' ~140 MB are most of a 100k ingest's peak, so the rise is shown too.
        print(f"  {size}: peak {peak:.0f} MB, {per_cell:.2f} KB per cell: "
              + compare.verdict(per_cell, KB_PER_CELL_GOAL)
              + f" (the ingest's own rise: {rise:.0f} MB, "
              f"{rise * 1024 / filled_cells(rows):.2f} KB per cell)")


if __name__ == "__main__":
    cli = parser("bench.ingest_speed", __doc__)
    cli.add_argument("rounds", nargs="*", type=int, metavar="ROUNDS",
                     help="paired rounds at 100k, then at 1M cells (default: 5 and 3)")
    main([str(n) for n in cli.parse_args().rounds[:2]])
