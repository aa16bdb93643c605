"""The app (Streamlit AppTest): upload files, see grids with merges, clear error messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    import streamlit as st

    st.cache_resource.clear()  # settings are cached per process; read them again
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def html_of(at) -> str:
    return "".join(el.proto.body for el in at.get("html"))


def test_first_visit_creates_a_chat_id_and_explains_what_to_do(app):
    assert len(app.query_params["session"]) == 22
    assert "Upload a report" in app.info[0].value


def test_upload_shows_each_grid_with_its_merges(app, samples):
    app.file_uploader[0].set_value(
        [("financial.xlsx", (samples / "financial.xlsx").read_bytes(), "application/vnd.ms-excel"),
         ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel")])
    app.run()
    assert not app.exception
    assert [h.value for h in app.subheader] == ["financial.xlsx", "hr.xlsx"]
    page = html_of(app)
    assert 'colspan="2"' in page and ">H1 2024</td>" in page
    assert 'rowspan="4"' in page and ">Engineering</td>" in page
    assert any("2 merged ranges: B1:C1, D1:E1" in c.value for c in app.caption)


def test_unreadable_files_get_their_message_and_the_rest_still_works(app, samples):
    app.file_uploader[0].set_value(
        [("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "application/vnd.ms-excel"),
         ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel")])
    app.run()
    assert not app.exception
    assert app.error[0].value.startswith("old.xls: this is a legacy Excel 97-2003 (.xls)")
    assert [h.value for h in app.subheader] == ["hr.xlsx"]


def test_remove_deletes_a_file_from_the_workspace(app, samples):
    app.file_uploader[0].set_value(
        ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel"))
    app.run()
    assert [h.value for h in app.subheader] == ["hr.xlsx"]
    next(b for b in app.button if b.label == "Remove").click()
    app.run()
    assert not app.subheader and "Upload a report" in app.info[0].value
