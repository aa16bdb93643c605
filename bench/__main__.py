"""Print the benchmark figures: `python -m bench` (or `make bench`)."""

from __future__ import annotations

import json
import subprocess
import sys

from bench import workloads


def measure(operation: str, path: str, repeats: int = 3) -> dict[str, float]:
    result = subprocess.run([sys.executable, "-m", "bench.measure", operation, path,
                             str(repeats)], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def compare(title: str, path: str, baseline: str, ours: list[str], goal: float) -> None:
    print(f"\n{title}")
    base = measure(baseline, path)
    print(f"  {baseline:<14} {base['seconds']:8.3f} s   peak {base['peak_mb']:7.1f} MB "
          f"(+{base['extra_mb']:.1f} MB over imports)")
    for operation in ours:
        got = measure(operation, path)
        ratio = got["seconds"] / base["seconds"]
        verdict = "meets" if ratio <= goal else "misses"
        print(f"  {operation:<14} {got['seconds']:8.3f} s   peak {got['peak_mb']:7.1f} MB "
              f"(+{got['extra_mb']:.1f} MB over imports)   {ratio:.2f}x ({verdict} the "
              f"{goal}x goal)")


def main() -> None:
    print("Tablelens benchmarks (median of 3 runs, each operation in a fresh process)")
    compare("Read a 100k-cell workbook with merged headers (tablelens read vs openpyxl "
            "load_workbook(data_only=True))", str(workloads.workbook_100k()), "openpyxl",
            ["read", "read+iterate"], 1.3)
    csv_path = workloads.csv_60mb()
    compare("Read a 60 MB CSV (tablelens read = validate + index, streamed; read+iterate also "
            "walks every cell) vs csv.reader", str(csv_path), "csv", ["read", "read+iterate"], 1.3)


if __name__ == "__main__":
    main()
