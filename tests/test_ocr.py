"""Tables read from images with the real tesseract: ruled, borderless, noisy, and bad input."""

from __future__ import annotations

import io
import json
import os
import shutil
import time

import pytest
from PIL import Image, ImageFilter

from bench.ocr_render import font_available, render_table
from ingest.errors import ImageTooLarge, NoTableInImage, NotAnImage, OcrUnavailable
from ingest.grid import Grid
from ingest.limits import Limits
from ingest.ocr_validate import check_cell
from ingest.read import SUPPORTED, read_file

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None or not font_available(),
                                reason="needs tesseract and DejaVu Sans (make setup)")

SALES = [["Region", "Q1 2024", "Q2 2024", "Change"],
         ["North", "1,200", "1,350", "12.5%"],
         ["South", "980", "1,010", "3.1%"],
         ["East", "1,500", "1,620", "8.0%"],
         ["West", "2,340", "2,115", "-9.6%"]]


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch):
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")


def png(image: Image.Image) -> io.BytesIO:
    buf = io.BytesIO()
    image.save(buf, "PNG")
    buf.seek(0)
    return buf


def texts(grid: Grid) -> list[list[str]]:
    rows = [[""] * grid.n_cols for _ in range(grid.n_rows)]
    for cell in grid.cells.values():
        rows[cell.row - 1][cell.col - 1] = cell.text
    return rows


def test_images_are_supported_formats():
    for ext in (".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff", ".bmp"):
        assert ext in SUPPORTED


def test_ruled_table_with_a_merged_header_keeps_the_merge_and_the_boxes():
    rows = [["Region", "Sales", "", "Staff"], *[["North", "1,200", "1,350", "14"],
                                                ["South", "980", "1,010", "9"],
                                                ["East", "1,500", "1,620", "21"]]]
    rendered = render_table(rows, font_px=16, ruled=True, merges=[(0, 1, 1, 2)])
    [grid] = read_file(png(rendered.image), "staff.png")
    assert (grid.kind, grid.sheet, grid.n_rows, grid.n_cols) == ("image", "image1", 4, 4)
    assert texts(grid) == rendered.rows
    header = grid.get(1, 2)
    assert (header.text, header.colspan, header.range_ref) == ("Sales", 2, "B1:C1")
    assert [(m.row, m.col, m.rowspan, m.colspan) for m in grid.merges()] == [(1, 2, 1, 2)]
    # boxes are in the original image's pixels, where the renderer drew each cell
    for (r, c), (x0, y0, x1, y1) in rendered.boxes.items():
        box = grid.get(r + 1, c + 1).box
        assert all(abs(a - b) <= 3 for a, b in zip(box, (x0, y0, x1, y1), strict=True)), \
            (r, c, box)
    cell = grid.get(2, 2)
    assert cell.raw == "1,200" and 0.6 < cell.confidence <= 1 and cell.flags == ()


def test_borderless_table_gets_its_columns_from_word_alignment():
    rendered = render_table(SALES, font_px=16, ruled=False)
    [grid] = read_file(png(rendered.image), "sales.png")
    assert texts(grid) == SALES
    assert all(c.box is not None for c in grid.cells.values())


def test_wrapped_cells_stay_one_cell_in_both_layouts():
    rows = [["Item", "Description", "Amount"],
            ["A-1", "Office chairs for the new meeting room on floor two", "1,250"],
            ["B-7", "Printer toner", "89"]]
    for ruled in (True, False):
        rendered = render_table(rows, font_px=16, ruled=ruled, wrap=20)
        [grid] = read_file(png(rendered.image), "items.png")
        assert texts(grid) == rows, ruled


def test_hyphens_en_dashes_and_minus_signs_are_told_apart_by_their_length():
    rows = [["Game", "Score", "Change", "Note"],
            ["Cy-Hawk", "W 20\u201317", "\u221295", "\u2013"],
            ["Big Ten", "L 7\u201338", "\u2212383", "1918\u20131998"],
            ["Non-conf", "W 45\u201342", "12", "Emin\u22121"]]
    for px in (12, 16, 20):
        rendered = render_table(rows, font_px=px, ruled=px != 16)
        [grid] = read_file(png(rendered.image), "dashes.png")
        assert texts(grid) == rows, px
        # what tesseract read stays in raw, and a cell whose text differs says so
        assert all((c.raw != c.text) == ("corrected" in c.flags) for c in grid.cells.values())
        assert any(c.raw != c.text for c in grid.cells.values())


def test_bullets_lowercase_o_and_leading_points_are_read_from_their_shape():
    rows = [["Venue", "Fineness", "Weight", "Year"],
            ["Cyclone Stadium \u2022 Ames", ".925 silver", "25 grams (0.88 oz)", "1998"],
            ["Rose Bowl \u2022 Pasadena", ".900 silver", "23 grams (0.81 oz)", "2004"]]
    for px, ruled in ((16, True), (20, False)):
        rendered = render_table(rows, font_px=px, ruled=ruled)
        [grid] = read_file(png(rendered.image), "shapes.png")
        assert texts(grid) == rows, px


def test_run_together_words_are_spaced_and_a_four_read_as_a_is_a_four():
    rows = [["Note", "Population", "Area km2"],
            ["4(a)", "32.3 M", "1,234"],
            ["4(c)", "336 M", "56"]]
    for px, ruled in ((16, True), (20, False)):
        rendered = render_table(rows, font_px=px, ruled=ruled)
        [grid] = read_file(png(rendered.image), "spaces.png")
        assert texts(grid) == rows, px


def test_a_column_few_rows_fill_is_kept_in_a_borderless_table():
    # 31 lines: a gap three lines cross is a gap between columns, not a column
    rows = [["District", "Party", "Term"], *[[f"{k}th District", "Republican", ""]
                                              for k in range(5, 35)]]
    rows[3][2] = rows[17][2] = "-2005"
    rendered = render_table(rows, font_px=16, ruled=False)
    [grid] = read_file(png(rendered.image), "sparse.png")
    assert texts(grid) == rows


def test_a_word_wrapped_after_its_hyphen_is_joined_without_a_space():
    rows = [["Item", "Plan"], ["A", "Re-establishment of self-governing councils"],
            ["B", "Scores 20-17 and 1918-1998"]]
    rendered = render_table(rows, font_px=16, ruled=True, wrap=12)  # "Re-" / "establishment"
    [grid] = read_file(png(rendered.image), "plan.png")
    assert texts(grid) == rows


CUT_OFF_AT_THE_RIGHT = ("the picture seems cut off at its right edge: text runs into it, so a "
                        "column of the table may be missing or read only in part; take the "
                        "screenshot again with the whole table in it")


def test_a_screenshot_cut_through_its_last_column_says_so_and_invents_nothing():
    """A browser tester: a ruled table cropped through its last column came back without
    that column, and nothing said a column was missing."""
    rendered = render_table(SALES, font_px=16, ruled=True)
    [whole] = read_file(png(rendered.image), "sales.png")
    assert whole.warnings == [] and texts(whole) == SALES
    x0, _, x1, _ = rendered.boxes[(0, 3)]  # "Change": cut through its text
    cropped = rendered.image.crop((0, 0, (x0 + x1) // 2, rendered.image.height))
    [grid] = read_file(png(cropped), "sales.png")
    assert grid.warnings == [CUT_OFF_AT_THE_RIGHT]
    assert texts(grid) == [row[:3] for row in SALES]  # the columns it shows, read as before


def test_a_borderless_screenshot_cut_at_its_right_or_bottom_edge_says_so():
    rendered = render_table(SALES, font_px=16, ruled=False)
    x0, _, x1, _ = rendered.boxes[(0, 3)]
    [grid] = read_file(png(rendered.image.crop((0, 0, (x0 + x1) // 2, rendered.image.height))),
                       "sales.png")
    assert grid.warnings == [CUT_OFF_AT_THE_RIGHT]
    _, y0, _, y1 = rendered.boxes[(4, 0)]  # "West": cut through its row
    [grid] = read_file(png(rendered.image.crop((0, 0, rendered.image.width, (y0 + y1) // 2))),
                       "sales.png")
    assert grid.warnings == [CUT_OFF_AT_THE_RIGHT.replace("right", "bottom")
                             .replace("a column", "a row")]


def test_each_ruled_table_of_an_image_is_its_own_grid_and_progress_is_reported():
    first = render_table([["Region", "Sales"], ["North", "120"], ["South", "98"]]).image
    second = render_table([["Item", "Cost", "Qty"], ["Desk", "250", "4"],
                           ["Lamp", "35", "12"]]).image
    page = Image.new("L", (max(first.width, second.width) + 40,
                           first.height + second.height + 80), 255)
    page.paste(first, (20, 20))
    page.paste(second, (20, first.height + 60))
    stages: list[str] = []
    grids = read_file(png(page), "two.png", progress=lambda f, stage: stages.append(stage))
    assert [(g.sheet, g.index, g.n_rows, g.n_cols) for g in grids] == [
        ("image1", 0, 3, 2), ("image2", 1, 3, 3)]
    assert [c.text for c in grids[1].iter_cells()] == [
        "Item", "Cost", "Qty", "Desk", "250", "4", "Lamp", "35", "12"]
    assert "reading the text with OCR" in stages and "finding rows and columns" in stages


def test_a_noisy_skewed_photo_still_gives_a_usable_grid_with_flags():
    rendered = render_table(SALES, font_px=16, ruled=True)
    noisy = rendered.image.rotate(2, expand=True, fillcolor=255, resample=Image.BICUBIC)
    noisy = noisy.filter(ImageFilter.GaussianBlur(1.4))
    [grid] = read_file(png(noisy), "photo.png")
    assert (grid.n_rows, grid.n_cols) == (5, 4)
    got = texts(grid)
    assert [r[0] for r in got] == [r[0] for r in SALES]
    right = sum(got[r][c] == SALES[r][c] for r in range(5) for c in range(4))
    assert right >= 16, got
    # every body cell that came out wrong is flagged: doubt about a value is never silent
    for cell in grid.cells.values():
        if cell.row > 1 and cell.text != SALES[cell.row - 1][cell.col - 1]:
            assert cell.flags, (cell.ref, cell.text, cell.confidence)
    assert any("low_confidence" in c.flags for c in grid.cells.values())


def test_heavy_blur_flags_low_confidence_cells():
    rendered = render_table(SALES, font_px=16, ruled=True)
    noisy = rendered.image.rotate(2, expand=True, fillcolor=255, resample=Image.BICUBIC)
    noisy = noisy.filter(ImageFilter.GaussianBlur(2.2))
    [grid] = read_file(png(noisy), "blurred.png")
    flagged = [c for c in grid.cells.values() if "low_confidence" in c.flags]
    assert flagged, [(c.text, c.confidence) for c in grid.cells.values()]


@pytest.mark.parametrize(("raw", "numeric", "text", "flags"), [
    ("l,2OO", True, "1,200", ("corrected",)),
    ("S0", True, "50", ("corrected",)),
    ("\u201412", True, "-12", ("corrected",)),
    ("1 ,234", True, "1,234", ("corrected",)),
    ("(l,234)", True, "(1,234)", ("corrected",)),
    ("Ql 2024", False, "Q1 2024", ("corrected",)),
    ("Q22024", False, "Q2 2024", ("corrected",)),
    ("North", False, "North", ()),
    ("n/a?", True, "n/a?", ("not_a_number",)),
    ("12.5%", True, "12.5%", ()),
    ("\u221295", True, "\u221295", ()),
    ("$ 315,652", True, "$ 315,652", ()),
    ("S 3.0", False, "S 3.0", ()),
    ("1 234", True, "1234", ("corrected",)),
])
def test_cells_are_checked_against_their_column(raw, numeric, text, flags):
    assert check_cell(raw, 0.9, numeric) == (text, flags)
    assert "low_confidence" in check_cell(raw, 0.3, numeric)[1]


def test_commas_read_as_points_are_fixed_in_a_comma_grouped_column():
    assert check_cell("2.115", 0.8, True, grouped=True) == ("2,115", ("corrected",))
    assert check_cell("2.115", 0.8, True, grouped=False) == ("2.115", ())


# --- questions over OCR'd tables -----------------------------------------------------------------

def ask(capsys, path, question: str) -> dict:
    from tablelens.cli import main

    code = main(["ask", str(path), "--question", question, "--json"])
    assert code == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def offline(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_a_question_over_a_screenshot_cites_cells_with_their_boxes(offline, capsys, tmp_path):
    rendered = render_table(SALES, font_px=16, ruled=True)
    path = tmp_path / "sales.png"
    rendered.image.save(path)
    doc = ask(capsys, path, "What is the total of Q2 2024?")
    assert doc["answer"] == "6,095 (read from an image)"
    assert doc["values"] == [6095]
    cited = {e["ref"]: e for e in doc["evidence"]}
    assert set(cited) == {"C2", "C3", "C4", "C5"}
    for ref, e in cited.items():
        r, c = int(ref[1:]) - 1, ord(ref[0]) - ord("A")
        assert e["sheet"] == "image1" and e["text"] == SALES[r][c]
        assert all(abs(a - b) <= 3 for a, b in zip(e["box"], rendered.boxes[(r, c)],
                                                   strict=True))


def test_an_answer_using_an_uncertain_cell_says_so(offline, capsys, tmp_path):
    rendered = render_table(SALES, font_px=16, ruled=True)
    photo = rendered.image.rotate(2, expand=True, fillcolor=255, resample=Image.BICUBIC)
    path = tmp_path / "photo.png"
    photo.filter(ImageFilter.GaussianBlur(1.4)).save(path)
    doc = ask(capsys, path, "Which region has the highest Q1 2024?")
    assert doc["answer"] == "West (read from an image; 1 cell uncertain)"
    assert all(len(e["box"]) == 4 for e in doc["evidence"])


# --- bad input ---------------------------------------------------------------------------------

def test_a_file_renamed_png_says_it_is_not_an_image():
    with pytest.raises(NotAnImage) as info:
        read_file(io.BytesIO(b"Region,Sales\nNorth,12\n"), "table.png")
    assert str(info.value).startswith("table.png: the file is named as an image, but its bytes")
    assert "PNG" in str(info.value)
    with pytest.raises(NotAnImage, match="scan.png"):
        read_file(io.BytesIO(b"\x89PNG\r\n\x1a\n" + bytes(64)), "scan.png")


def test_a_huge_image_is_refused_quickly_with_the_setting_named():
    # 20000 x 20000 white pixels compress to a small PNG; decoding them would take 400 MB
    buf = io.BytesIO()
    Image.new("1", (20000, 20000), 1).save(buf, "PNG")
    buf.seek(0)
    start = time.monotonic()
    with pytest.raises(ImageTooLarge) as info:
        read_file(buf, "poster.png")
    assert time.monotonic() - start < 2
    message = str(info.value)
    assert message.startswith("poster.png: the image is ")
    assert "TABLELENS_OCR_MAX_PIXELS" in message and "40,000,000" in message


def test_the_pixel_limit_is_a_setting():
    rendered = render_table(SALES, font_px=16)
    w, h = rendered.image.size
    with pytest.raises(ImageTooLarge, match=f"{w:,} x {h:,} pixels; the limit is 1,000"):
        read_file(png(rendered.image), "sales.png", limits=Limits(max_ocr_pixels=1000))


def test_an_image_without_a_table_says_so():
    blank = Image.new("L", (640, 400), 255)
    with pytest.raises(NoTableInImage) as info:
        read_file(png(blank), "holiday.jpg")
    assert str(info.value).startswith("holiday.jpg: no table was found in the image")


def test_missing_tesseract_says_how_to_install_it(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert shutil.which("tesseract") is None
    rendered = render_table(SALES, font_px=16)
    with pytest.raises(OcrUnavailable) as info:
        read_file(png(rendered.image), "sales.png")
    message = str(info.value)
    assert message.startswith("sales.png: reading tables from images needs the tesseract")
    assert "apt-get install tesseract-ocr" in message
    assert os.environ["PATH"] == "/nonexistent"


def test_a_citation_outlines_the_cited_boxes_on_the_original_image():
    from tablelens.citations import outlined_image

    rendered = render_table(SALES, font_px=16, ruled=True)
    data = png(rendered.image).getvalue()
    cited, clicked = rendered.boxes[(1, 2)], rendered.boxes[(2, 2)]
    out = Image.open(io.BytesIO(outlined_image(data, [cited, clicked], clicked)))
    assert out.size == rendered.image.size and out.mode == "RGB"
    assert out.getpixel((cited[0] + 20, cited[1])) == (245, 140, 0)
    assert out.getpixel((clicked[0] + 20, clicked[1])) == (220, 0, 0)
    assert out.getpixel((rendered.boxes[(1, 0)][0] + 20, rendered.boxes[(1, 0)][1]))[0] < 50


def test_the_preview_marks_uncertain_and_corrected_cells():
    from ingest.grid import Cell
    from tablelens.render import grid_html, ocr_caption

    cells = {(1, 1): Cell(1, 1, "West", "West", box=(0, 0, 9, 9), confidence=0.2,
                          flags=("low_confidence",)),
             (1, 2): Cell(1, 2, "l,2OO", "1,200", box=(9, 0, 19, 9), confidence=0.9,
                          flags=("corrected",)),
             (1, 3): Cell(1, 3, "980", "980", box=(19, 0, 29, 9), confidence=0.95)}
    grid = Grid("photo.png", "image1", 0, 1, 3, "image", cells)
    page = grid_html(grid)
    assert 'class="tl-uncertain" title="A1 (read from an image, 20% sure)"' in page
    assert "tl-corrected" in page and "OCR read \u201cl,2OO\u201d" in page
    assert "C1 (read from an image, 95% sure)" in page
    assert ocr_caption(grid).startswith("Read from an image with OCR: 1 cell uncertain (wavy "
                                        "red underline), 1 corrected")


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_turned_screenshot_is_read_upright_with_boxes_on_the_original(degrees):
    rendered = render_table(SALES, font_px=16, ruled=True)
    turned = rendered.image.rotate(degrees, expand=True, fillcolor=255)
    [grid] = read_file(png(turned), "turned.png")
    assert texts(grid) == SALES
    # the box of A1 ("Region") in the turned image's pixels: where the renderer's box went
    w, h = rendered.image.size
    x0, y0, x1, y1 = rendered.boxes[(0, 0)]
    corners = {90: [(y0, w - x0), (y1, w - x1)], 180: [(w - x0, h - y0), (w - x1, h - y1)],
               270: [(h - y0, x0), (h - y1, x1)]}[degrees]
    want = (min(x for x, _ in corners), min(y for _, y in corners),
            max(x for x, _ in corners), max(y for _, y in corners))
    got = grid.get(1, 1).box
    assert all(abs(a - b) <= 4 for a, b in zip(got, want, strict=True)), (got, want)
