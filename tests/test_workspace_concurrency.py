"""Parallel uploads into one workspace, and questions while an upload writes (real SQLite)."""

from __future__ import annotations

import multiprocessing
import shutil
import traceback
from pathlib import Path

from storage.workspace import Workspace

SAMPLES = Path(__file__).parent / "samples"
PROCESSES = 20


def _add_all(root: str, files: list[str], barrier, results) -> None:
    """One process: open the workspace and add every file, reporting any exception."""
    try:
        barrier.wait(timeout=60)
        ws = Workspace(root)
        for path in files:
            ws.add_file(path)
        ws.close()
        results.put("ok")
    except BaseException:
        results.put(traceback.format_exc())


def test_twenty_processes_adding_the_same_files_store_one_copy_each(tmp_path):
    # Two different files named alike race for one slug; the others for one sha256.
    other = tmp_path / "other" / "hr.xlsx"
    other.parent.mkdir()
    shutil.copy(SAMPLES / "financial.xlsx", other)
    files = [str(SAMPLES / "hr.xlsx"), str(other), str(SAMPLES / "csv/multiline_quoted.csv"),
             str(SAMPLES / "html/multi.html")]
    root = str(tmp_path / "fresh")  # not created yet: the schema is raced for too
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(PROCESSES), context.Queue()
    workers = [context.Process(target=_add_all,
                               args=(root, files[i % 4:] + files[:i % 4], barrier, results))
               for i in range(PROCESSES)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert outcomes == ["ok"] * PROCESSES, next(o for o in outcomes if o != "ok")
    ws = Workspace(root)
    assert sorted(s.slug for s in ws.sources()) == ["hr", "hr_2", "multi", "multiline_quoted"]
    assert len(list(ws.files_dir.iterdir())) == 4
    assert len(ws.grids()) == len({g.id for g in ws.grids()})
