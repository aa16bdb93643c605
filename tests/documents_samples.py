"""Small real documents for the document tests, written with the libraries that read them
(python-docx), by Chromium's print-to-pdf (a text PDF with a ruled table), Pillow (an
image-only PDF), pypdf (a password-protected PDF) and msoffcrypto-tool (a protected docx)."""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

REPORT_HTML = """<html><head><meta charset="utf-8"></head><body>
<h1>Quarterly report</h1>
<p>The company had 42 employees at the end of June. Revenue grew strongly in the second
quarter, driven by exports to Norway.</p>
<h2>Results</h2>
<table border="1" cellspacing="0"><tr><th>Item</th><th>2019</th><th>2018</th></tr>
<tr><td>Revenue</td><td>1,234</td><td>1,000</td></tr>
<tr><td>Costs</td><td>500</td><td>400</td></tr></table>
<p>Costs include a one-off charge of 12 million for the new warehouse in Bergen.</p>
</body></html>"""


def docx_bytes() -> bytes:
    """A report: a heading, two paragraphs, and a table with a merged header cell."""
    import docx

    doc = docx.Document()
    doc.add_heading("Staff and offices", level=1)
    doc.add_paragraph("The company had 42 employees at the end of June. Most of them work "
                      "in the Oslo office.")
    doc.add_paragraph("A second office opened in Bergen in March.")
    table = doc.add_table(rows=4, cols=3)
    table.cell(0, 1).merge(table.cell(0, 2)).text = "Headcount"
    table.cell(0, 0).merge(table.cell(1, 0)).text = "Office"
    table.cell(1, 1).text = "2019"
    table.cell(1, 2).text = "2018"
    for r, row in enumerate([("Oslo", "30", "28"), ("Bergen", "12", "0")], start=2):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_heading("Outlook", level=1)
    doc.add_paragraph("Hiring continues in the autumn.")
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def prose_docx(*paragraphs: str) -> bytes:
    """A .docx of these paragraphs and nothing else."""
    import docx

    doc = docx.Document()
    for text in paragraphs:
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def text_pdf(folder: Path, html: str = REPORT_HTML, stem: str = "report") -> Path:
    """A text PDF of a page (by default one page with a ruled table), printed by headless
    Chromium."""
    page = folder / f"{stem}.html"
    page.write_text(html, encoding="utf-8")
    out = folder / f"{stem}.pdf"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--no-pdf-header-footer",
                    f"--print-to-pdf={out}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    return out


def image_pdf() -> bytes:
    """A PDF whose one page is an image (a scan)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(image).text((20, 20), "Revenue 1,234", fill="black")
    out = io.BytesIO()
    image.save(out, "PDF")
    return out.getvalue()


def locked_pdf(plain: bytes) -> bytes:
    """A copy of a PDF that opens only with a password."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(plain))
    writer.encrypt(user_password="secret", owner_password="owner")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def locked_docx(plain: bytes) -> bytes:
    """A copy of a docx that opens only with a password (an OLE2 container)."""
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(plain)).encrypt("secret", out)
    return out.getvalue()


def other_zip() -> bytes:
    """A zip that is not a Word document (named .docx in the tests)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes/readme.txt", "hello")
    return out.getvalue()
