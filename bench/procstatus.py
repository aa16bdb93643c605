"""Peak and current memory of this process from /proc/self/status (Linux).

`VmHWM` is the peak resident set of this process's own address space. `ru_maxrss` is not: a
child keeps its parent's high-water mark across fork and exec (children of an 800 MB parent
report about 810 MB whichever way they are started, while VmHWM reads 13 MB).
"""

from __future__ import annotations

from pathlib import Path

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


def status_kib(text: str, field: str) -> int:
    """The value of `field` ("VmHWM", "VmRSS") in a /proc/<pid>/status text, in KiB."""
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name == field:
            number, unit = value.split()
            if unit != "kB":  # the kernel writes kB (KiB) for every Vm* field
                raise ValueError(f"{field}: unexpected unit {unit!r}")
            return int(number)
    raise KeyError(field)


def memory_mib() -> tuple[float, float]:
    """(peak, current) resident memory of this process, in MiB: VmHWM and VmRSS."""
    text = STATUS.read_text()
    return status_kib(text, "VmHWM") / 1024, status_kib(text, "VmRSS") / 1024


def reset_peak() -> bool:
    """Set VmHWM back to the current VmRSS (writing 5 to clear_refs, Linux >= 4.0), so the
    next peak is the next operation's own; False where the kernel refuses."""
    try:
        CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True
