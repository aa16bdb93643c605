"""An .xlsx whose XML expands past the limit is refused, bounded by bytes actually read."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import zipfile

import openpyxl
import pytest

from ingest.zipguard import ExpansionLimit, GuardedZipFile

LIMIT = 8 * 1024 * 1024


def _bomb(path, sheet_bytes: int) -> None:
    """Write a valid workbook whose sheet XML is padded with whitespace to sheet_bytes."""
    wb = openpyxl.Workbook()
    wb.active["A1"] = "x"
    buffer = io.BytesIO()
    wb.save(buffer)
    with zipfile.ZipFile(buffer) as src:
        parts = {n: src.read(n) for n in src.namelist()}
    sheet = parts.pop("xl/worksheets/sheet1.xml")
    head, tail = sheet.split(b"<sheetData>", 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
        with dst.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as out:
            out.write(head + b"<sheetData>")
            chunk = b" " * (1024 * 1024)
            for _ in range(sheet_bytes // len(chunk)):
                out.write(chunk)
            out.write(tail)


def test_counting_stream_stops_at_the_limit_even_when_headers_lie(tmp_path):
    path = tmp_path / "bomb.xlsx"
    _bomb(path, 64 * 1024 * 1024)
    # check_declared=False stands for an archive whose headers understate its size.
    with open(path, "rb") as raw:
        archive = GuardedZipFile(raw, LIMIT, check_declared=False)
        with pytest.raises(ExpansionLimit) as info, \
                archive.open("xl/worksheets/sheet1.xml") as stream:
            stream.read()
    assert not info.value.declared
    assert LIMIT < archive.bytes_read <= LIMIT + 1024 * 1024  # one chunk past, never the rest


def test_declared_sizes_refuse_the_archive_before_decompressing(tmp_path):
    path = tmp_path / "bomb.xlsx"
    _bomb(path, 64 * 1024 * 1024)
    with open(path, "rb") as raw, pytest.raises(ExpansionLimit) as info:
        GuardedZipFile(raw, LIMIT)
    assert info.value.declared and info.value.total > 64 * 1024 * 1024


def test_zip_bomb_is_refused_in_a_memory_limited_process(tmp_path):
    """A 1 GiB sheet compressed to ~1 MB, read under a 768 MiB address-space limit."""
    path = tmp_path / "bomb.xlsx"
    _bomb(path, 1024 * 1024 * 1024)
    assert path.stat().st_size < 4 * 1024 * 1024
    script = textwrap.dedent(f"""
        import json, resource
        resource.setrlimit(resource.RLIMIT_AS, (768 * 1024 * 1024, 768 * 1024 * 1024))
        import ingest.zipguard as zg
        from ingest.errors import DecompressedTooLarge
        from ingest.limits import Limits
        from ingest.read import read_file
        counted = []
        original = zg.GuardedZipFile.count
        def count(self, n):
            counted.append(n)
            original(self, n)
        zg.GuardedZipFile.count = count
        try:
            read_file({str(path)!r}, limits=Limits(max_unzipped_bytes={LIMIT}))
            print(json.dumps({{"error": None}}))
        except DecompressedTooLarge as exc:
            print(json.dumps({{"error": str(exc), "read": sum(counted)}}))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["error"] == (
        "bomb.xlsx: the workbook declares more than 8,388,608 bytes of XML when unpacked. If it "
        "is a genuine workbook, split it or raise TABLELENS_MAX_UNZIPPED_BYTES.")
    assert outcome["read"] <= LIMIT
