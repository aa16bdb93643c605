"""Write report.ods and report.xls in this folder: the P&L of `tests/sheet_samples.report`
(a merged two-row header, a hidden sheet, an empty one). Run again to rebuild them:

    python -m tests.samples.build_sheet_samples
"""

from __future__ import annotations

from pathlib import Path

from tests.sheet_samples import report, write_ods, write_xls

HERE = Path(__file__).parent

if __name__ == "__main__":
    write_ods(HERE / "report.ods", report())
    write_xls(HERE / "report.xls", report())
