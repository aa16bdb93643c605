"""The HTML reader on real pages: span placement, clamps, nesting, numbering, encodings, limits."""

from __future__ import annotations

import io

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ingest.errors import BinaryContent, EmptyFile, NestingTooDeep, TooManyCells
from ingest.grid import Grid, no_progress
from ingest.html_reader import read_html
from ingest.limits import Limits
from ingest.read import read_file


def read_page(html: str | bytes, *, name: str = "page.html", **limits: int) -> list[Grid]:
    """Read an HTML page given as text or bytes, with optional limits."""
    data = html.encode("utf-8") if isinstance(html, str) else html
    return read_file(io.BytesIO(data), name, limits=Limits(**limits))


def placed(grid: Grid) -> list[tuple[int, int, int, int, str]]:
    """Return every anchor cell as (row, col, rowspan, colspan, text), in reading order."""
    return [(c.row, c.col, c.rowspan, c.colspan, c.text) for c in grid.iter_cells()]


def test_spans_from_earlier_rows_push_cells_right(samples):
    [grid] = read_file(samples / "html" / "spans.html")
    assert (grid.sheet, grid.index, grid.kind) == ("table1", 0, "html")
    assert (grid.n_rows, grid.n_cols) == (7, 5)
    assert grid.caption == "Sales by region, units"
    assert grid.warnings == []
    assert placed(grid) == [
        (1, 1, 2, 1, "Region"), (1, 2, 1, 2, "H1 2024"), (1, 4, 1, 2, "H2 2024"),
        (2, 2, 1, 1, "Q1"), (2, 3, 1, 1, "Q2"), (2, 4, 1, 1, "Q3"), (2, 5, 1, 1, "Q4"),
        (3, 1, 3, 1, "North"), (3, 2, 1, 1, "10"), (3, 3, 1, 1, "11"), (3, 4, 1, 1, "12"),
        (3, 5, 1, 1, "13"),
        (4, 2, 1, 1, "20"), (4, 3, 1, 1, "21"), (4, 4, 1, 1, "22"), (4, 5, 1, 1, "23"),
        (5, 2, 1, 1, "30"), (5, 3, 1, 2, "n/a"), (5, 5, 1, 1, "33"),
        (6, 1, 1, 1, "South"), (6, 2, 1, 1, "40"), (6, 4, 1, 1, "42"), (6, 5, 1, 1, "43"),
        (7, 1, 1, 1, "Total"), (7, 2, 1, 1, "100\nunits"), (7, 3, 1, 1, "1st half"),
        (7, 4, 1, 1, "1,000"), (7, 5, 1, 1, "many spaces"),
    ]
    assert grid.anchor_of(2, 1).text == "Region"  # the corner covers row 2
    assert grid.anchor_of(5, 1).text == "North"
    assert grid.anchor_of(1, 3).text == "H1 2024"
    assert grid.get(6, 3) is None  # an empty 1x1 cell is not stored


def test_cell_styles_and_raw_values(samples):
    [grid] = read_file(samples / "html" / "spans.html")
    header, north, na, south, total = (grid.get(1, 2), grid.get(3, 1), grid.get(5, 3),
                                       grid.get(6, 1), grid.get(7, 1))
    assert header.style.bold and not header.style.italic  # <th>
    assert north.style.bold  # wholly inside <b>
    assert na.style.italic and not na.style.bold  # wholly inside <i>
    assert total.style.bold  # wholly inside <strong>
    assert south.style.indent == 2 and not south.style.bold  # two leading &nbsp;
    assert not grid.get(3, 2).style.bold
    assert north.raw == north.text == "North"


def test_tables_numbered_in_document_order_nested_and_empty_ones_included(samples):
    grids = read_file(samples / "html" / "multi.html")
    # Tables in <script>, <noscript> and <template> are not page content. table1 is a layout
    # table whose only text is its nested table's, and table5 has only blank cells: both are
    # skipped but keep their numbers.
    assert [(g.sheet, g.index) for g in grids] == [
        ("table2", 0), ("table3", 1), ("table4", 2), ("table6", 3)]
    staff, items, nested, last = grids
    assert staff.caption == "Staff"
    assert placed(staff) == [(1, 1, 1, 1, "Name"), (1, 2, 1, 1, "Team"),
                             (2, 1, 1, 1, "Ada"), (2, 2, 1, 1, "Core")]
    # The outer cell's text excludes the nested table's.
    assert items.get(2, 2).text == "see above"
    assert (items.n_rows, items.n_cols) == (3, 2)
    assert placed(nested) == [(1, 1, 1, 1, "nested 1"), (1, 2, 1, 1, "nested 2")]
    assert placed(last) == [(1, 1, 1, 1, "last")]
    texts = {c.text for g in grids for c in g.iter_cells()}
    assert not texts & {"written by a script", "no scripts", "a template"}


def test_huge_colspan_and_rowspan_past_the_end_are_clamped_with_warnings(samples):
    first, second = read_file(samples / "html" / "clamps.html")
    assert first.warnings == [
        "table1: colspan 100000000 at row 1 clamped to 1000",
        "table1: rowspan 5 at row 2 clamped to 2 (its row group ends at row 3)",
    ]
    assert (first.n_rows, first.n_cols) == (3, 1001)  # no phantom rows
    assert placed(first) == [
        (1, 1, 1, 1, "Title"), (1, 2, 1, 1000, "Spans far too wide"),
        (2, 1, 2, 1, "Past the end"), (2, 2, 1, 1, "bad colspan"),  # colspan="abc" is 1
        (3, 2, 1, 1, "negative rowspan"), (3, 3, 1, 1, "zero colspan"),
    ]
    # A rowspan stops at the end of its row group (thead here); rowspan="0" fills its group.
    assert second.warnings == [
        "table2: rowspan 3 at row 1 clamped to 2 (its row group ends at row 2)"]
    assert placed(second) == [
        (1, 1, 2, 1, "Head"), (1, 2, 1, 1, "A"), (2, 2, 1, 1, "B"),
        (3, 1, 3, 1, "Whole group"), (3, 2, 1, 1, "x"), (4, 2, 1, 1, "y"), (5, 2, 1, 1, "z"),
    ]


def test_rowspan_cap_and_colspan_overlapping_a_rowspan_are_clamped():
    [grid] = read_page("<table><tr><td rowspan=99999>a</td><td>b</td><td rowspan=2>c</td></tr>"
                       "<tr><td colspan=3>d</td></tr></table>", max_html_rowspan=100)
    assert grid.warnings == [
        "table1: rowspan 99999 at row 1 clamped to 100",
        "table1: colspan 3 at row 2 clamped to 1 (a cell from an earlier row spans column 3)",
        "table1: rowspan 99999 at row 1 clamped to 2 (its row group ends at row 2)",
    ]
    # "d" starts after "a" and stops short of "c": no two cells share a slot.
    assert placed(grid) == [(1, 1, 2, 1, "a"), (1, 2, 1, 1, "b"), (1, 3, 2, 1, "c"),
                            (2, 2, 1, 1, "d")]


def test_cells_outside_rows_and_unclosed_tags_are_tolerated():
    [grid] = read_page("<table><td>a<td>b<tr><td>c<td><p>d<p>e</table>")
    assert placed(grid) == [(1, 1, 1, 1, "a"), (1, 2, 1, 1, "b"),
                            (2, 1, 1, 1, "c"), (2, 2, 1, 1, "d e")]


def test_empty_merged_cell_is_kept_as_an_anchor():
    [grid] = read_page("<table><tr><td colspan=2></td><td>x</td></tr></table>")
    merged = grid.get(1, 1)
    assert (merged.colspan, merged.raw, merged.text) == (2, None, "")
    assert grid.get(1, 3).text == "x"


def test_page_nested_thousands_deep_is_refused_before_reading():
    page = "<html><body>" + "<div>" * 5000 + "<table><tr><td>x</td></tr></table>"
    with pytest.raises(NestingTooDeep) as caught:
        read_page(page, name="deep.html")
    message = str(caught.value)
    assert message.startswith("deep.html: ")
    assert "5,005 levels deep" in message and "the limit is 256" in message
    assert "TABLELENS_MAX_HTML_DEPTH" in message


def test_depth_limit_is_configurable_and_counts_real_nesting_only():
    nested = "<div>" * 20 + "<table><tr><td>x</td></tr></table>"
    with pytest.raises(NestingTooDeep, match="the limit is 10"):
        read_page(nested, max_html_depth=10)
    assert len(read_page(nested, max_html_depth=30)) == 1
    # Thousands of unclosed <p>, <li> and <td> close each other, as in a browser.
    sloppy = ("<ul>" + "<li><p>item" * 3000 + "</ul><table>" + "<tr><td>a<td>b" * 3000
              + "</table>")
    [grid] = read_page(sloppy)
    assert (grid.n_rows, grid.n_cols) == (3000, 2)


def test_binary_bytes_under_an_html_name_are_refused(samples):
    with pytest.raises(BinaryContent) as caught:
        read_file(samples / "html" / "binary.html")
    assert str(caught.value).startswith("binary.html: the file holds binary data")
    assert "file ending" in str(caught.value)


def test_latin1_page_with_meta_charset(samples):
    [grid] = read_file(samples / "html" / "latin1.html")
    # ISO-8859-1 is read as Windows-1252, as browsers do: 0x80 is the euro sign.
    assert [c.text for c in grid.iter_cells()] == [
        "Stadt", "Preis", "Köln", "12,50 €", "Zürich", "«15»"]


def test_declared_charset_wins_over_the_utf8_and_cp1252_fallbacks():
    page = '<meta charset="windows-1251"><table><tr><td>Привет</td></tr></table>'
    [grid] = read_page(page.encode("cp1251"))
    assert grid.get(1, 1).text == "Привет"


def test_byte_order_mark_and_undeclared_encodings():
    table = "<table><tr><td>naïve</td></tr></table>"
    for data in (table.encode("utf-16"), table.encode("utf-8-sig"), table.encode("utf-8"),
                 table.encode("cp1252")):
        [grid] = read_page(data)
        assert grid.get(1, 1).text == "naïve"


def test_page_without_tables_is_empty():
    stream = io.BytesIO(b"<html><body><p>No tables here.</p></body></html>")
    assert read_html(stream, name="p.html", limits=Limits(), progress=no_progress) == []
    with pytest.raises(EmptyFile, match="no table was found"):
        read_page("<p>No tables here.</p><table><tr><td> </td></tr></table>")


def test_cell_limit_counts_the_whole_file_and_merged_slots():
    two_tables = "<table><tr><td>1</td><td>2</td></tr></table>" * 2
    assert len(read_page(two_tables, max_cells=4)) == 2
    with pytest.raises(TooManyCells) as caught:
        read_page(two_tables, max_cells=3, name="cells.html")
    assert str(caught.value).startswith("cells.html: ")
    assert "TABLELENS_MAX_CELLS" in str(caught.value)
    # One cell covering 100 x 1000 slots is over a 10,000-cell limit, however short the page.
    spans = "<table><tr><td rowspan=100 colspan=1000>x</td></tr>" + "<tr></tr>" * 99 + "</table>"
    with pytest.raises(TooManyCells):
        read_page(spans, max_cells=10_000)


span = st.sampled_from(["1", "2", "3", "0", "x", ""])
row_groups = st.lists(  # row groups of rows of (rowspan, colspan) cells
    st.lists(st.lists(st.tuples(span, span), max_size=5), min_size=1, max_size=4),
    min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(row_groups)
def test_placed_cells_never_overlap_and_stay_inside_the_table(groups):
    assume(any(row for group in groups for row in group))
    body = "".join(
        "<tbody>" + "".join(
            "<tr>" + "".join(f'<td rowspan="{rs}" colspan="{cs}">c</td>' for rs, cs in row)
            + "</tr>" for row in group) + "</tbody>"
        for group in groups)
    [grid] = read_page(f"<table>{body}</table>")
    taken: set[tuple[int, int]] = set()
    for cell in grid.iter_cells():
        slots = {(r, c) for r in range(cell.row, cell.row + cell.rowspan)
                 for c in range(cell.col, cell.col + cell.colspan)}
        assert not slots & taken
        taken |= slots
        assert cell.col + cell.colspan - 1 <= grid.n_cols
    assert grid.n_rows == sum(len(group) for group in groups)
    assert grid.cell_count == sum(len(row) for group in groups for row in group)
    # The cell limit counts every slot a cell covers, exactly.
    assert len(read_page(f"<table>{body}</table>", max_cells=len(taken))) == 1
    with pytest.raises(TooManyCells):
        read_page(f"<table>{body}</table>", max_cells=len(taken) - 1)
    # A span never leaves its row group.
    first = 1
    for group in groups:
        last = first + len(group) - 1
        for cell in grid.iter_cells():
            if first <= cell.row <= last:
                assert cell.row + cell.rowspan - 1 <= last
        first = last + 1


WIKIPEDIA_PAGE = """<!DOCTYPE html><html><body><div class="mw-parser-output">
<table class="wikitable sortable">
<caption>States by area<span style="display:none">sort</span></caption>
<thead>
<tr><th rowspan="2">State</th>
    <th colspan="2">Total area<sup id="cite_ref-2" class="reference"><a
      href="#cite_note-2">[2]</a></sup></th>
    <th rowspan="2">Share</th></tr>
<tr><th>sq mi</th><th>km<sup>2</sup></th></tr>
</thead>
<tbody>
<tr><td><span class="flagicon" aria-hidden="true">&#9873;</span>
      <a href="/wiki/Alaska">Alaska</a></td>
    <td><span data-sort-value="7005665384000000000"
      style="display:none">!C7005665384</span> 665,384</td>
    <td><span style="DISPLAY : NONE">7006172339800000000</span>1,723,337</td>
    <td><span style="display:none">7001175000000000000</span>17.5%</td></tr>
<tr><td><a href="/wiki/Montana">Montana</a><span hidden>Big Sky</span></td>
    <td><span style="color:#555; display: none !important">!B9976974149070</span> 147,040</td>
    <td><span style="visibility:hidden">000</span>380,831</td>
    <td><span style="display:none">7000243000000000000</span>2.43%</td></tr>
</tbody></table></div></body></html>"""


def test_hidden_sort_keys_are_dropped_from_cell_text_as_browsers_drop_them():
    [grid] = read_page(WIKIPEDIA_PAGE, name="states.html")
    assert grid.caption == "States by area"
    assert placed(grid) == [
        (1, 1, 2, 1, "State"), (1, 2, 1, 2, "Total area[2]"), (1, 4, 2, 1, "Share"),
        (2, 2, 1, 1, "sq mi"), (2, 3, 1, 1, "km2"),
        (3, 1, 1, 1, "\u2691 Alaska"), (3, 2, 1, 1, "665,384"), (3, 3, 1, 1, "1,723,337"),
        (3, 4, 1, 1, "17.5%"),
        (4, 1, 1, 1, "Montana"), (4, 2, 1, 1, "147,040"), (4, 3, 1, 1, "380,831"),
        (4, 4, 1, 1, "2.43%"),
    ]
    assert grid.get(4, 4).raw == "2.43%"


@pytest.mark.parametrize(("inner", "text"), [
    ('<span style="display:none">key</span>5', "5"),
    ('<span style="display :none;">key</span>5', "5"),
    ('<span style="Display: None">key</span>5', "5"),
    ('<span style="visibility: hidden">key</span>5', "5"),
    ('<div hidden><b>key</b><br>more</div>5', "5"),
    ('<span aria-hidden="true">&#8593;</span>5', "\u21915"),  # browsers show it
    ('<span style="display:inline">shown</span>5', "shown5"),
    ('<span style="display:none-ish">shown</span>5', "shown5"),
    ('<span data-display="none">shown</span>5', "shown5"),
])
def test_only_text_a_browser_hides_is_dropped(inner, text):
    [grid] = read_page(f"<table><tr><td>{inner}</td><td>x</td></tr></table>")
    assert grid.get(1, 1).text == text and grid.get(1, 2).text == "x"
