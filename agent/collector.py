"""The cyclic garbage collector during a step of a run.

A first question on a tall table builds a million small objects that the process keeps (its
frame's values, the table's facts). With the collector on, every burst of them set off a
full pass over all the others: nine passes while a 100k-row table's header tree decoded and
half-second passes while its facts were computed, each one a pause that Stop could not cut
short. So each step runs with the collector paused (`ingest.gcpause`, shared with uploads),
and a step that leaves many new objects behind moves them, with everything else the
collector tracks, to its permanent generation (`gc.freeze`), where full passes no longer
visit them.

The price: cyclic garbage that exists at that moment is never collected. A run leaves a few
hundred such objects, and the freeze happens only after a step that built more than
`FREEZE_FROM` objects, in practice once per large table and process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from ingest.gcpause import gc_paused

FREEZE_FROM = 200_000
"""New objects a step must leave for them to be frozen (a 10k-cell table's are far fewer)."""


def _freeze_if_grown() -> None:
    # With the collector paused, generation 0's count is the objects made and not freed
    # since its last pass: what this step (and any thread beside it) built.
    if gc.get_count()[0] >= FREEZE_FROM:
        gc.freeze()


@contextmanager
def step_collector() -> Iterator[None]:
    """Run a step with the collector paused; freeze what a large step built."""
    with gc_paused(on_resume=_freeze_if_grown):
        yield
