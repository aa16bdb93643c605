"""Tables whose every cell has its own box (HTML's `border=1` with cellspacing: double lines
between cells), alone and below a page's heading and prose, read with the real tesseract."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from PIL import Image, ImageDraw, ImageFont

from bench import browser_harness
from bench.ocr_render import BOLD, FONT, font_available, render_table
from ingest.grid import Grid
from ingest.ocr_engine import Word
from ingest.ocr_layout import without_rule_marks
from ingest.read import read_file
from ingest.structure import analyse_grid
from tests.test_ocr import _one_thread, png, texts  # noqa: F401 (_one_thread: autouse fixture)

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None or not font_available(),
                                reason="needs tesseract and DejaVu Sans (make setup)")

BUDGET = [["Department", "Budget (k€)", ""],
          ["", "2023", "2024"],
          ["IT", "1,200", "1,350"],
          ["HR", "400", "420"],
          ["Legal", "310", "295"],
          ["Total", "1,910", "2,065"]]
SPANS = {(0, 0): (2, 1), (0, 1): (1, 2)}
"""(row, col) -> (rowspan, colspan): "Department" over two rows, "Budget (k€)" over two
columns."""
COVERED = {(1, 0), (0, 2)}
HEADING = "Budget 2024"
PROSE = ["This page lists the department budgets. The travel", "budget was cut by 15 percent."]
PAGE_HTML = """<!doctype html><html><head><meta charset="utf-8">
<style>body {{ font-size: {px}px; font-family: 'DejaVu Sans'; }}</style></head><body>
<h1>Budget 2024</h1>
<p>This page lists the department budgets. The travel budget was cut by 15 percent.</p>
<table border=1 cellspacing={spacing} cellpadding={padding}>
<tr><th rowspan=2>Department</th><th colspan=2>Budget (k€)</th></tr>
<tr><th>2023</th><th>2024</th></tr>
<tr><td>IT</td><td>1,200</td><td>1,350</td></tr>
<tr><td>HR</td><td>400</td><td>420</td></tr>
<tr><td>Legal</td><td>310</td><td>295</td></tr>
<tr><td><b>Total</b></td><td>1,910</td><td>2,065</td></tr>
</table></body></html>"""


def _column_widths(font: ImageFont.FreeTypeFont, pad: int) -> list[int]:
    """Each column as wide as its widest one-column cell; the spanning header widens the
    last column it covers when it needs more."""
    widths = [0, 0, 0]
    for r, row in enumerate(BUDGET):
        for c, text in enumerate(row):
            if SPANS.get((r, c), (1, 1))[1] == 1:
                widths[c] = max(widths[c], int(font.getlength(text)) + 2 * pad)
    need = int(font.getlength(BUDGET[0][1])) + 2 * pad
    widths[2] += max(0, need - widths[1] - widths[2])
    return widths


def boxed_page(font_px: int, scale: int, *, prose: bool) -> Image.Image:
    """Draw the budget table as a browser draws `<table border=1>`: every cell its own box,
    `2 * scale` px apart, dark on its top and left and light grey on its bottom and right,
    inside a frame drawn the other way round; with a heading and two lines of prose above
    when `prose`. `scale` is the device pixel ratio (line widths and spacing grow with it)."""
    font = ImageFont.truetype(str(FONT), font_px * scale)
    bold = ImageFont.truetype(str(BOLD), font_px * scale)
    big = ImageFont.truetype(str(BOLD), font_px * 2 * scale)
    pad, gap, line = 2 * scale, 2 * scale, scale
    widths = _column_widths(bold, pad)
    row_h = int(font_px * 1.2 * scale) + 2 * pad
    top = 10 * scale
    image = Image.new("L", (sum(widths) + 420 * scale, 20 * scale + 8 * row_h
                            + (int(font_px * 5 * scale) if prose else 0)), 255)
    draw = ImageDraw.Draw(image)
    if prose:
        draw.text((8 * scale, top), HEADING, fill=0, font=big)
        top += int(font_px * 2.6 * scale)
        for text in PROSE:
            draw.text((8 * scale, top), text, fill=0, font=font)
            top += int(font_px * 1.2 * scale)
        top += font_px * scale
    x0 = 8 * scale
    xs = [x0 + gap]
    for w in widths:
        xs.append(xs[-1] + w + gap)
    ys = [top + gap + r * (row_h + gap) for r in range(len(BUDGET) + 1)]
    _box(draw, (x0, top, xs[-1], ys[-1]), line, dark_first=False)
    for r, row in enumerate(BUDGET):
        for c, text in enumerate(row):
            if (r, c) in COVERED:
                continue
            rs, cs = SPANS.get((r, c), (1, 1))
            box = (xs[c], ys[r], xs[c + cs] - gap, ys[r + rs] - gap)
            _box(draw, box, line, dark_first=True)
            f = bold if r < 2 or text == "Total" else font
            draw.text((box[0] + pad + line, (box[1] + box[3]) // 2), text, fill=0, font=f,
                      anchor="lm")
    return image


def _box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], line: int, *,
         dark_first: bool) -> None:
    """A rectangle outline whose top and left sides differ in grey from its bottom and right
    (a browser's inset and outset borders)."""
    x0, y0, x1, y1 = box
    first, second = (90, 190) if dark_first else (190, 90)
    draw.rectangle((x0, y0, x1, y0 + line - 1), fill=first)
    draw.rectangle((x0, y0, x0 + line - 1, y1), fill=first)
    draw.rectangle((x0, y1 - line + 1, x1, y1), fill=second)
    draw.rectangle((x1 - line + 1, y0, x1, y1), fill=second)


def check_budget(grids: list[Grid]) -> None:
    """The one grid is the budget table, spans and all, with its header paths and no warning;
    nothing of the page around it is a cell."""
    [grid] = grids
    assert texts(grid) == BUDGET
    assert grid.warnings == []  # a whole table: nothing runs into an edge of the picture
    assert {(c.row, c.col, c.rowspan, c.colspan) for c in grid.merges()} == {(1, 1, 2, 1),
                                                                              (1, 2, 1, 2)}
    [table] = analyse_grid(grid)
    assert sorted(table.col_paths.values()) == [("Budget (k€)", "2023"),
                                                ("Budget (k€)", "2024")]
    assert [p[-1] for _, p in sorted(table.row_paths.items())] == ["IT", "HR", "Legal",
                                                                   "Total"]


@pytest.mark.parametrize(("font_px", "scale"), [(16, 1), (13, 1), (16, 2), (20, 2)])
def test_cells_boxed_one_by_one_are_split_into_columns_and_spans(font_px, scale):
    image = boxed_page(font_px, scale, prose=False)
    check_budget(read_file(png(image), "boxed.png"))


@pytest.mark.parametrize(("font_px", "scale"), [(16, 1), (14, 2)])
def test_a_heading_and_prose_above_a_boxed_table_are_not_its_cells(font_px, scale):
    image = boxed_page(font_px, scale, prose=True)
    grids = read_file(png(image), "page.png")
    check_budget(grids)
    words = " ".join(c.text for c in grids[0].cells.values())
    assert "page" not in words and "percent" not in words


def _screenshot(tmp_path, font_px: int, scale: int, spacing: int, padding: int
                ) -> Image.Image:
    page = tmp_path / "page.html"
    page.write_text(PAGE_HTML.format(px=font_px, spacing=spacing, padding=padding),
                    encoding="utf-8")
    shot = tmp_path / "shot.png"
    subprocess.run([str(browser_harness.CHROMIUM), "--headless=new", "--no-sandbox",
                    "--disable-gpu", "--hide-scrollbars", f"--force-device-scale-factor={scale}",
                    "--window-size=640,440", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--screenshot={shot}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    return Image.open(shot)


@pytest.mark.skipif(not browser_harness.CHROMIUM.exists(), reason="needs Debian's chromium")
@pytest.mark.parametrize(("font_px", "scale", "spacing", "padding"),
                         [(16, 1, 2, 1), (16, 2, 2, 1), (13, 1, 2, 1), (16, 1, 8, 4)])
def test_a_chromium_page_with_a_bordered_table_reads_as_its_grid(tmp_path, font_px, scale,
                                                                 spacing, padding):
    """Chromium's defaults (cellspacing 2, cellpadding 1) and wider spacing, whose gaps
    between the boxes are no rows or columns of the grid."""
    image = _screenshot(tmp_path, font_px, scale, spacing, padding)
    check_budget(read_file(png(image), "table_shot.png"))


def test_bars_left_of_a_rule_are_dropped_and_never_glued_to_a_cell():
    def word(text: str) -> Word:
        return Word(0, 0, 10, 10, text, 90.0, (1, 1, 1))

    kept = without_rule_marks([word("|1,350"), word("|"), word("2,065|"), word("a|b")])
    assert [w.text for w in kept] == ["1,350", "2,065", "a|b"]
    assert all(w.as_read == w.text for w in kept)


def _above(table: Image.Image, font_px: int) -> Image.Image:
    """The budget page's heading (twice the type) and two lines of prose over `table`."""
    top = int(font_px * 6.5)
    page = Image.new("L", (max(table.width, font_px * 36), table.height + top), 255)
    draw = ImageDraw.Draw(page)
    draw.text((font_px, font_px // 2), HEADING, fill=0,
              font=ImageFont.truetype(str(BOLD), font_px * 2))
    for k, text in enumerate(PROSE):
        draw.text((font_px, int(font_px * (3.2 + 1.3 * k))), text, fill=0,
                  font=ImageFont.truetype(str(FONT), font_px))
    page.paste(table, (0, top))
    return page


@pytest.mark.parametrize("font_px", [16, 22])
def test_prose_above_a_borderless_table_is_a_title_not_its_cells(font_px):
    rows = [row for k, row in enumerate(BUDGET) if k != 0]
    rows[0] = ["Department", "2023", "2024"]
    table = render_table(rows, font_px=font_px, ruled=False).image
    [grid] = read_file(png(_above(table, font_px)), "page.png")
    [structure] = analyse_grid(grid)
    assert sorted(structure.col_paths.values()) == [("2023",), ("2024",)]
    body = [[c.text for c in sorted(grid.cells.values(), key=lambda c: c.col) if c.row == r]
            for r in sorted(structure.row_paths)]
    assert body == rows[1:]
    prose = {(c.row, c.col): c.text for c in grid.cells.values()
             if "percent" in c.text or HEADING in c.text}
    assert len(prose) == 2
    assert {structure.roles[k] for k in prose} <= {"title", "note"}
