"""Write the openpyxl-made sample workbooks in this folder (run again to rebuild them).

    python tests/samples/build_xlsx_samples.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import openpyxl
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

HERE = Path(__file__).parent


def multi_sheet() -> None:
    """Two sheets (one hidden row, one hidden column), dates, percents, a formula without a
    cached value, a data cell merged across two columns, and a styled header band."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Jan 2024"
    ws.append(["Region", "Sales", "Growth", "Closed on"])
    for cell in ws[1]:
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="DDEBF7")
        cell.border = Border(bottom=Side(style="thin"))
    ws.append(["North", 1234.5, 0.125, dt.date(2024, 1, 31)])
    ws.append(["South", 980, -0.05, dt.datetime(2024, 1, 15, 9, 30)])
    ws.append(["Hidden row", 1, 0, None])
    ws.row_dimensions[4].hidden = True
    ws.append(["Total", "=B2+B3", None, None])  # openpyxl stores no cached value
    ws["B2"].number_format = "#,##0.00"
    ws["C2"].number_format = "0.0%"
    ws["C3"].number_format = "0.0%"
    ws["D2"].number_format = "yyyy-mm-dd"
    ws["D3"].number_format = "yyyy-mm-dd hh:mm"
    ws["A6"] = "Note"
    ws["B6"] = "merged across two columns"
    ws.merge_cells("B6:C6")
    ws["A7"] = "Negative"
    ws["B7"] = -1234
    ws["B7"].number_format = "#,##0;(#,##0)"

    second = wb.create_sheet("Feb 2024")
    second.append(["Region", "Sales", "Secret"])
    second.append(["North", 1500, "x"])
    second.append(["South", 1010, "y"])
    second.column_dimensions["C"].hidden = True
    second["A2"].alignment = Alignment(indent=2)
    second["A3"].font = Font(italic=True)
    wb.create_sheet("Empty")
    wb.save(HERE / "multi_sheet.xlsx")


if __name__ == "__main__":
    multi_sheet()
