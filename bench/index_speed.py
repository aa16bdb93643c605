"""Build time and query latency of the search indexes: `python -m bench.index_speed`.

For each generated workbook (`bench/workloads.py` `sized_workbook`: 100k and 1M data cells
by default, rows of 50 numbers under "Region g > Qk" beside an "Item r" label), in a fresh
workspace:

- **ingest**: reading the file and writing its cells, views and full-text index (printed
  apart: it is not the vector index);
- **vector index build**: `VectorIndex.sync()` on a loaded model: the items to embed, the
  embedding, the upsert into in-memory Qdrant. Goal: <= 10 s at 100k;
- **query latency**: the hybrid search (full text, exact values, vectors, fused) and the
  whole context at 1,500 tokens, median and worst of the questions below;
- **planted recall**: questions naming one cell by its row label and column path, in several
  wordings ("What was the Q4 figure of Region 3 for Item 217?"), at rows and columns drawn
  with a fixed seed; a question's value is found when the context at 500 or 1,500 tokens holds
  it as a whole cell of its row line (`bench.context_recall.in_context`, and the line starts
  with the cell's sheet row). Goal: 95% at 1,500 tokens, 90% at 500.

torch's and qdrant_client's imports and the model's load are printed apart, once: every
process pays them once, whatever the workbook's size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

SIZES = (100_000, 1_000_000)
GOAL_BUILD_S = 10.0
"""Vector index build at 100k cells."""
QUESTIONS = ("What was the Q4 figure of Region 3 for Item 217?",
             "Which item has the highest Region 5 > Q2 figure?",
             "Item 42 Region 7 Q1",
             "total of Region 0 Q5")


def _ms(seconds: Sequence[float]) -> str:
    return (f"median {1000 * statistics.median(seconds):.0f} ms, "
            f"worst {1000 * max(seconds):.0f} ms")


def measure(size: int, folder: Path, embedder) -> None:
    from agent.context_builder import ContextBuilder
    from bench.workloads import sized_workbook
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace

    path = sized_workbook(folder, size)
    with tempfile.TemporaryDirectory(prefix="tablelens-index-") as tmp:
        ws = Workspace(tmp)
        try:
            t0 = time.perf_counter()
            ws.add_file(path)
            ingest = time.perf_counter() - t0
            index = VectorIndex(ws, embedder=embedder)
            report = index.sync()
            build = report.seconds - report.timings.get("model_load_s", 0.0)
            parts = ", ".join(f"{k.removesuffix('_s')} {v:.1f} s"
                              for k, v in report.timings.items() if k != "model_load_s")
            met = "met" if build <= GOAL_BUILD_S else "not met"
            goal = f" (goal <= {GOAL_BUILD_S:.0f} s: {met})" if size == SIZES[0] else ""
            print(f"{size:>9,} cells: ingest {ingest:.1f} s; vector index build {build:.1f} s"
                  f"{goal}: {report.points} points, {report.embedded} texts embedded ({parts})")
            builder = ContextBuilder(ws, vectors=index)
            builder.build(QUESTIONS[0])  # the tokenizer and the frame load once, not timed
            search, context = [], []
            for question in QUESTIONS:
                t0 = time.perf_counter()
                builder.search.search(question)
                search.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                builder.build(question, budget_tokens=1_500)
                context.append(time.perf_counter() - t0)
            print(f"{'':>9}        hybrid search {_ms(search)}; context {_ms(context)} "
                  f"({len(QUESTIONS)} questions)")
            print(f"{'':>9}        {planted_recall(builder, path)}")
        finally:
            ws.close()


PLANTED = 20
PLANTED_FORMS = ("What was the {q} figure of {region} for {item}?",
                 "{item} {region} {q}",
                 "How much did {item} record in {region} in {q}?",
                 "value of {item} under {region} > {q}")
PLANTED_GOALS = {500: 0.90, 1_500: 0.95}


def planted_recall(builder, path: Path) -> str:
    """Recall of planted one-cell questions at each budget of PLANTED_GOALS."""
    import random

    from bench.context_recall import in_context

    [table] = builder.workspace.table_ids()
    frame = builder._frame(table)
    rng = random.Random(PLANTED)
    data = frame.data_attrs
    found = dict.fromkeys(PLANTED_GOALS, 0)
    for n in range(PLANTED):
        row, attr = rng.choice(frame.rows), rng.choice(data)
        region, q = attr.path[-2], attr.path[-1]
        value = frame.value(row, attr.key)
        question = PLANTED_FORMS[n % len(PLANTED_FORMS)].format(
            q=q, region=region, item=frame.row_label(row))
        for budget in PLANTED_GOALS:
            text = builder.build(question, budget_tokens=budget).text
            lines = [line for line in text.splitlines() if line.startswith(f"r{row} |")]
            found[budget] += value is not None and any(in_context(value.text, line)
                                                       for line in lines)
    return "planted recall: " + "; ".join(
        f"{budget:,} tokens {hits}/{PLANTED} ({100 * hits / PLANTED:.0f}%, goal "
        f"{goal:.0%}: {'met' if hits / PLANTED >= goal else 'not met'})"
        for (budget, goal), hits in zip(PLANTED_GOALS.items(), found.values(), strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index_speed",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES),
                        help="data cells of each generated workbook")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    t0 = time.perf_counter()
    import torch  # noqa: F401  (timed apart: every process pays it once)

    torch_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    import qdrant_client  # noqa: F401  (likewise)

    qdrant_s = time.perf_counter() - t0
    from bench.workloads import OUT
    from storage.embedder import shared_embedder

    embedder = shared_embedder()
    t0 = time.perf_counter()
    embedder.dimension()
    print(f"torch import {torch_s:.1f} s; qdrant_client import {qdrant_s:.1f} s; model load "
          f"{time.perf_counter() - t0:.1f} s (once per process, not in the figures below)")
    for size in args.sizes:
        measure(size, OUT, embedder)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
