"""Damaged files never crash ingest: mutated copies of real samples either store or fail with
a typed `IngestError`, and a failed add leaves the workspace as it was.

The mutations are the damage real files suffer (cut short, bits flipped, bytes inserted) and,
for .xlsx, damage inside one zip entry that the archive itself still accepts (its XML cut, a
shared-string index out of range, a deflate stream bit-flipped). The examples are derandomized:
every run (and CI) tries the same ones, so the test cannot flake; a crash found here becomes a
fix in the reader, not a retry.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ingest.errors import IngestError
from storage.workspace import Workspace

SAMPLES = Path(__file__).parent / "samples"
TEXT_SAMPLES = sorted([*SAMPLES.glob("csv/*.csv"), *SAMPLES.glob("html/*.html"),
                       *SAMPLES.glob("md/*.md")])
XLSX_SAMPLES = sorted(SAMPLES.glob("*.xlsx"))
CALAMINE_SAMPLES = sorted([*SAMPLES.glob("*.xls"), *SAMPLES.glob("*.ods")])

def fuzz(examples: int) -> settings:
    """Fixed examples (no example database either); 10 s per example is the bound the issue
    sets, a generous one: each takes well under a second here."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=10_000,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _truncate(data: bytes, draw) -> bytes:
    return data[:draw(st.integers(0, max(len(data) - 1, 0)))]


def _flip(data: bytes, draw) -> bytes:
    if not data:
        return data
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(out) - 1))
        out[i] ^= 1 << draw(st.integers(0, 7))
    return bytes(out)


def _insert(data: bytes, draw) -> bytes:
    i = draw(st.integers(0, len(data)))
    return data[:i] + draw(st.binary(min_size=1, max_size=64)) + data[i:]


MUTATIONS = {"truncate": _truncate, "flip": _flip, "insert": _insert}


@st.composite
def mutated(draw, paths: list[Path]) -> tuple[str, bytes]:
    path = draw(st.sampled_from(paths))
    data = path.read_bytes()
    for _ in range(draw(st.integers(1, 2))):
        data = MUTATIONS[draw(st.sampled_from(sorted(MUTATIONS)))](data, draw)
    return path.name, data


@st.composite
def zip_entry_damage(draw) -> tuple[str, bytes]:
    """An .xlsx whose archive is sound but one entry's content is damaged (XML cut or
    flipped, a shared-string index out of range), or whose entry's compressed bytes are
    flipped under a sound header (zlib sees it)."""
    path = draw(st.sampled_from(XLSX_SAMPLES))
    with zipfile.ZipFile(path) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    target = draw(st.sampled_from(sorted(entries)))
    how = draw(st.sampled_from(["content", "shared_string_index", "deflate"]))
    if how == "shared_string_index":
        target = next((n for n in entries if n.startswith("xl/worksheets/")), target)
        entries[target] = entries[target].replace(b"<v>0</v>", b"<v>99999</v>", 1)
    elif how == "content":
        entries[target] = MUTATIONS[draw(st.sampled_from(sorted(MUTATIONS)))](
            entries[target] or b" ", draw)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    data = buffer.getvalue()
    if how == "deflate":
        data = _flip_inside_entry(data, target, draw)
    return path.name, data


def _flip_inside_entry(data: bytes, name: str, draw) -> bytes:
    """Flip a bit of one entry's compressed bytes (its local header and CRC stay as written)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(name)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    if info.compress_size == 0:
        return data
    out = bytearray(data)
    out[start + draw(st.integers(0, info.compress_size - 1))] ^= 1 << draw(st.integers(0, 7))
    return bytes(out)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    ws = Workspace(tmp_path_factory.mktemp("fuzz") / "w")
    ws.add_file(SAMPLES / "hr.xlsx")  # a stored file the failed adds must leave alone
    yield ws
    ws.close()


def check_add(ws: Workspace, name: str, data: bytes) -> None:
    """Add the bytes: a typed error or a stored file, and nothing half-written on error."""
    before = (ws.sources(), sorted(p.name for p in ws.files_dir.iterdir()), ws.table_ids())
    try:
        info = ws.add_file(io.BytesIO(data), name)
    except IngestError as exc:
        event(type(exc).__name__)  # the outcome classes: pytest --hypothesis-show-statistics
        assert name in str(exc)
        assert (ws.sources(), sorted(p.name for p in ws.files_dir.iterdir()),
                ws.table_ids()) == before
        return
    event("stored")
    if info.sha256 not in {s.sha256 for s in before[0]}:
        ws.remove_source(info.sha256)  # keep the workspace small for the next example


@fuzz(200)
@given(case=mutated(TEXT_SAMPLES))
def test_mutated_csv_html_and_markdown_store_or_fail_with_a_typed_error(workspace, case):
    check_add(workspace, *case)


@fuzz(150)
@given(case=mutated(XLSX_SAMPLES))
def test_mutated_xlsx_bytes_store_or_fail_with_a_typed_error(workspace, case):
    check_add(workspace, *case)


@fuzz(150)
@given(case=mutated(CALAMINE_SAMPLES))
def test_mutated_xls_and_ods_bytes_store_or_fail_with_a_typed_error(workspace, case):
    # calamine is Rust: a panic would surface as pyo3's PanicException, not an IngestError.
    check_add(workspace, *case)


@fuzz(150)
@given(case=zip_entry_damage())
def test_damaged_xlsx_entries_store_or_fail_with_a_typed_error(workspace, case):
    check_add(workspace, *case)
