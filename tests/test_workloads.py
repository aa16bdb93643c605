"""The benchmark workbooks: data columns under the header's, and as many cells as named."""

from __future__ import annotations

import openpyxl
import pytest

from bench import workloads


def _shape(path):
    """(columns the headers span, columns holding data, data cells) of the first sheet."""
    ws = openpyxl.load_workbook(path).worksheets[0]
    rows = list(ws.iter_rows(values_only=True))
    header = {i for i, value in enumerate(rows[1], 1) if value is not None}
    merged = {c for r in ws.merged_cells.ranges for c in range(r.min_col, r.max_col + 1)}
    data = {i for row in rows[2:] for i, value in enumerate(row[1:], 2) if value is not None}
    cells = sum(value is not None for row in rows[2:] for value in row[1:])
    return header | merged, data, cells


@pytest.mark.parametrize("write", [workloads.write_styled, workloads.write_streamed])
def test_the_data_columns_are_the_header_columns(tmp_path, write):
    path = tmp_path / "w.xlsx"
    write(path, rows=4, seed=1)
    headers, data, cells = _shape(path)
    assert headers == data == set(range(2, 2 + workloads.DATA_COLUMNS))  # B:AY
    assert cells == 4 * workloads.DATA_COLUMNS


@pytest.mark.parametrize(("cells", "width", "columns"), [(100, 10, 10), (1_000, 20, 20),
                                                         (10_000, 50, 50), (10_000, 52, 50)])
def test_a_sized_workbook_holds_the_cells_it_is_named_for(tmp_path, cells, width, columns):
    headers, data, got = _shape(workloads.sized_workbook(tmp_path, cells, width))
    assert headers == data == set(range(2, 2 + columns))
    assert got == cells
