"""`tablelens inspect`: many files in one process, JSON on stdout, errors listed, exit codes."""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import openpyxl
import pytest

from tablelens.cli import main

from .conftest import bench_tables


def run_json(capsys, *args):
    code = main(["inspect", "--json", *map(str, args)])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_inspect_shows_a_documents_passages_of_text(capsys, tmp_path):
    report = tmp_path / "report.txt"
    report.write_text("Quarterly report\n\nRevenue rose 12% in the quarter.\n\n"
                      "The company had 42 employees at the end of June.\n", encoding="utf-8")
    code, doc = run_json(capsys, report)
    assert code == 0 and doc["tables"] == []
    assert [(p["section"], p["paragraph"], p["text"]) for p in doc["passages"]] == [
        ("Quarterly report", 1, "Revenue rose 12% in the quarter."),
        ("Quarterly report", 2, "The company had 42 employees at the end of June.")]
    assert main(["inspect", str(report)]) == 0
    printed = capsys.readouterr().out
    assert f"{report} :: text: 2 passages" in printed
    assert "section Quarterly report, paragraph 3: The company had 42 employees" in printed


def test_inspect_json_shape_for_the_reference_sample(capsys, samples):
    code, doc = run_json(capsys, samples / "financial.xlsx")
    assert code == 0 and doc["schema_version"] == 1 and doc["errors"] == []
    [table] = doc["tables"]
    assert (table["table"], table["sheet"]) == ("financial__p_l__t0", "P&L")
    assert table["merged"] == ["B1:C1", "D1:E1"]
    b1 = table["cells"][0]
    assert b1 == {"ref": "B1", "row": 1, "col": 2, "text": "H1 2024", "rowspan": 1,
                  "colspan": 2, "style": {"bold": True}, "role": "header"}
    assert (table["region"], table["header_rows"], table["header_cols"]) == ("A1:E8", [1, 2], [1])
    assert table["orientation"] == "top" and 0 < table["confidence"] <= 1
    assert table["column_paths"][1] == ["H1 2024", "Q2"]
    assert table["row_paths"][1] == ["Operating Expenses", "Salaries"]
    assert table["wide_columns"][:3] == ["_row", "level_1", "level_2"]
    assert table["wide_columns"][3:] == ["H1 2024 > Q1", "H1 2024 > Q2", "H2 2024 > Q3",
                                         "H2 2024 > Q4"]
    assert table["wide_column_paths"][4] == ["H1 2024", "Q2"]
    assert {c["ref"]: c["role"] for c in table["cells"]}["C5"] == "data"


def test_a_failing_file_is_listed_and_the_others_still_come_out(capsys, samples, tmp_path):
    bad = tmp_path / "broken.xlsx"
    bad.write_bytes(b"garbage")
    code, doc = run_json(capsys, samples / "hr.xlsx", bad, tmp_path / "missing.csv")
    assert code == 1
    assert [t["sheet"] for t in doc["tables"]] == ["Staff"]
    assert [e["source"] for e in doc["errors"]] == [str(bad), str(tmp_path / "missing.csv")]
    assert doc["errors"][0]["message"].startswith("broken.xlsx: this is not a valid .xlsx file")


def test_max_cells_truncates_and_says_so(capsys, samples):
    _, doc = run_json(capsys, "--max-cells", "3", samples / "hr.xlsx")
    assert len(doc["tables"][0]["cells"]) == 3 and doc["tables"][0]["cells_truncated"] is True


def test_text_output_and_usage_errors(capsys, samples):
    assert main(["inspect", str(samples / "hr.xlsx")]) == 0
    out = capsys.readouterr().out
    assert "Staff (hr__staff__t0): region A1:D8, header rows [1]" in out and "A2:A5" in out
    with pytest.raises(SystemExit) as info:
        main(["inspect"])
    assert info.value.code == 2
    assert main([]) == 2


def test_console_script_runs_in_its_own_process(samples):
    result = subprocess.run([sys.executable, "-m", "tablelens.cli", "inspect", "--json",
                             str(samples / "hr.xlsx")], capture_output=True, text=True)
    assert result.returncode == 0
    assert json.loads(result.stdout)["tables"][0]["sheet"] == "Staff"


def test_output_cut_short_by_its_reader_ends_quietly(tmp_path):
    # `tablelens inspect big.csv | head -1`: the pipe closes before the cells are all out.
    big = tmp_path / "big.csv"
    big.write_text("Name,Value\n" + "".join(f"Item {i},{i}\n" for i in range(4000)))
    inspect = subprocess.Popen([sys.executable, "-m", "tablelens.cli", "inspect", str(big)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert inspect.stdout is not None
    inspect.stdout.readline()
    inspect.stdout.close()  # as `head` does once it has its line
    _, err = inspect.communicate(timeout=120)
    assert inspect.returncode == 0
    assert b"Traceback" not in err, err.decode()


def _health(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def test_run_serves_the_app_and_stops_with_it(tmp_path):
    """`tablelens run` is the server: stopping it frees the port (no orphaned Streamlit)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "TABLELENS_DATA_DIR": str(tmp_path)}
    app = subprocess.Popen([sys.executable, "-m", "tablelens.cli", "run", "--port", str(port),
                            "--", "--server.headless", "true"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _health(port):
            assert app.poll() is None, "the app exited before it served"
            assert time.monotonic() < deadline, "the app did not answer its health check"
            time.sleep(0.5)
    finally:
        app.terminate()
        app.wait(timeout=30)
    assert not _health(port)


def _source_cells(path):
    """Every non-empty cell as the file's own library sees it: {(sheet, ref): text}."""
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8") as handle:
            return {(path.stem, f"{openpyxl.utils.get_column_letter(c)}{r}"): v
                    for r, row in enumerate(csv.reader(handle), 1)
                    for c, v in enumerate(row, 1) if v.strip()}
    wb = openpyxl.load_workbook(path, data_only=True)
    return {(ws.title, cell.coordinate): cell.value for ws in wb.worksheets
            for row in ws.iter_rows() for cell in row
            if cell.value is not None and str(cell.value).strip()}


@pytest.mark.skipif(not bench_tables(), reason="shared/bench is not beside the repo")
def test_every_bench_table_is_read_and_every_cell_appears(capsys):
    paths = bench_tables()
    code, doc = run_json(capsys, *paths)
    assert code == 0, doc["errors"]
    seen = {(t["source"], t["sheet"], c["ref"]) for t in doc["tables"] for c in t["cells"]}
    missing = [(str(p), key) for p in paths for key in _source_cells(p)
               if (str(p), *key) not in seen]
    assert missing == []
