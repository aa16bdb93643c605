"""The pure parts of `make bench`: paired rounds, their ratio statistics, VmHWM parsing."""

from __future__ import annotations

import pytest

from bench import procstatus
from bench.compare import both_verdicts
from bench.rounds import interleaved, ratio_stats

STATUS = """Name:\tpython
VmPeak:\t  812344 kB
VmHWM:\t   13256 kB
VmRSS:\t    9012 kB
Threads:\t1
"""


def test_rounds_are_interleaved_in_the_given_order():
    calls: list[str] = []
    results = interleaved(["base", "ours"], 3, lambda op: calls.append(op) or len(calls))
    assert calls == ["base", "ours"] * 3
    assert results == {"base": [1, 3, 5], "ours": [2, 4, 6]}


def test_ratios_pair_rounds_by_index_not_medians():
    # A slow second round slows both sides: each round's ratio is 2, whatever the load.
    stats = ratio_stats([2.0, 8.0, 4.0], [1.0, 4.0, 2.0])
    assert (stats.median, stats.low, stats.high, stats.rounds) == (2.0, 2.0, 2.0, 3)
    spread = ratio_stats([1.0, 3.0, 6.0, 1.0], [1.0, 1.0, 2.0, 2.0])
    assert (spread.median, spread.low, spread.high) == (2.0, 0.5, 3.0)
    assert str(spread) == "2.00x [0.50-3.00]"


def test_ratios_need_as_many_rounds_on_each_side():
    with pytest.raises(ValueError):
        ratio_stats([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        ratio_stats([], [])


def test_verdicts_name_wall_and_cpu_only_when_they_differ():
    assert both_verdicts(1.2, 1.1, 1.3) == "meets"
    assert both_verdicts(1.4, 1.5, 1.3) == "misses"
    assert both_verdicts(1.4, 1.2, 1.3) == "misses in wall time, meets in cpu time"


def test_vmhwm_and_vmrss_are_read_in_kib():
    assert procstatus.status_kib(STATUS, "VmHWM") == 13256
    assert procstatus.status_kib(STATUS, "VmRSS") == 9012
    with pytest.raises(KeyError):
        procstatus.status_kib(STATUS, "VmSwap")


def test_this_process_reports_its_own_peak_at_least_its_current_memory():
    peak, current = procstatus.memory_mib()
    assert peak >= current > 0


def test_a_baseline_without_its_package_is_skipped_never_measured(monkeypatch):
    from bench import measure

    monkeypatch.setattr(measure.importlib.util, "find_spec", lambda name: None)
    assert measure.measure("calamine", "unused.xlsx") == {
        "skipped": "python-calamine not installed"}
