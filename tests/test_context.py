"""Hybrid search and the context builder, with the real bundled model, in-memory Qdrant and
real SQLite; `tablelens context` end to end in the process.

The model and the tokenizer load once for the module; the workspace of the sample files and a
generated workbook larger than any budget here is built and indexed once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.context_builder import BUDGET_TOKENS, ContextBuilder, shared_counter
from agent.hybrid import RRF_K, Hit, HybridSearch, exact_forms, rrf
from bench.workloads import sized_workbook
from storage.embedder import shared_embedder
from storage.vector_index import VectorIndex
from storage.workspace import Workspace
from tablelens.cli import main
from tablelens.settings import CONTEXT_BUDGET, Settings

SAMPLES = Path(__file__).parent / "samples"
KINDS = {"table", "column_path", "row_path", "row", "cell", "chunk"}
ITEM_KEYS = {"kind", "table", "ref", "path", "source", "score"}
CODES_CSV = """Code,Part,Stock,Price
AB-1234,Hex bolt,120,0.35
AB-1243,Hex nut,4500,0.05
ZX-0042,Washer,10452,0.02
QK-7781,Spring pin,77,"1,234.5"
"""

embeddings = pytest.mark.embeddings


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder()


@pytest.fixture(scope="module")
def counter():
    return shared_counter()


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    # 400 rows of 50 numbers under "Region g > Qk": thousands of tokens, above every budget.
    return sized_workbook(tmp_path_factory.mktemp("workloads"), 20_000)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, big, embedder):
    root = tmp_path_factory.mktemp("context")
    (root / "parts.csv").write_text(CODES_CSV, encoding="utf-8")
    ws = Workspace(root / "ws")
    for path in (SAMPLES / "financial.xlsx", SAMPLES / "hr.xlsx", root / "parts.csv", big):
        ws.add_file(path)
    index = VectorIndex(ws, embedder=embedder)
    index.sync()
    yield ws, index
    ws.close()


@pytest.fixture(scope="module")
def builder(workspace, counter):
    ws, index = workspace
    return ContextBuilder(ws, vectors=index, counter=counter)


def _table(ws: Workspace, file_name: str) -> str:
    [table] = [t.id for t in ws.tables() if t.file_name == file_name]
    return table


# --- fusion -----------------------------------------------------------------------------------

def test_rrf_puts_what_both_lists_found_first_and_scores_by_rank():
    a, b, c = (Hit("column_path", "t", name, (name,)) for name in "abc")
    fused = rrf([[a, b], [c, b]])
    assert [h.text for h in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 2))
    assert fused[1].score == pytest.approx(1 / (RRF_K + 1))
    # A list names a thing once: a repeat does not add to its score or take a rank.
    again = rrf([[a, a, b]])
    assert [h.text for h in again] == ["a", "b"]
    assert again[1].score == pytest.approx(1 / (RRF_K + 2))


def test_the_same_cell_from_two_lists_is_one_item():
    lexical = Hit("cell", "t", "Hex bolt", ("Part",), "B2", found_by={"fts"})
    vector = Hit("cell", "t", "hex  bolt", ("Part",), None, "parts.csv", found_by={"vector"})
    [fused] = rrf([[lexical], [vector]])
    assert fused.found_by == {"fts", "vector"}
    assert fused.item() == {"kind": "cell", "table": "t", "ref": "B2", "path": ["Part"],
                            "source": "parts.csv",
                            "score": round(2 / (RRF_K + 1), 6)}


@pytest.mark.parametrize(("question", "forms"), [
    ("Which part is AB-1234?", ["AB-1234"]),
    ("Who holds 10452 units?", ["10452", "10,452"]),
    ("What costs 1,234.5?", ["1,234.5", "1234.5"]),
    ("Sales in Q3 of region 2 in 2019?", ["Q3", "2019"]),
])
def test_exact_forms_of_a_question(question, forms):
    assert exact_forms(question) == forms


@embeddings
@pytest.mark.parametrize(("question", "ref", "text"), [
    ("Which part has the code AB-1234?", "A2", "AB-1234"),
    ("What is ZX-0042?", "A4", "ZX-0042"),
    ("Which part has a stock of 10452?", "C4", "10452"),
    ("Which part has a stock of 10,452?", "C4", "10452"),
    ("Which part costs 1234.5?", "D5", "1,234.5"),
])
def test_exact_codes_and_numbers_are_found_lexically(workspace, question, ref, text):
    ws, index = workspace
    parts = _table(ws, "parts.csv")
    hits = HybridSearch(ws, index).search(question)
    # A code in the first column is the row's label (a row path), a number a cell.
    cells = [h for h in hits if h.kind in ("cell", "row_path") and h.table == parts]
    assert cells, [h.item() for h in hits[:5]]
    best = cells[0]
    assert (best.ref, best.text) == (ref, text), [h.item() for h in hits[:5]]
    assert best.found_by & {"fts", "exact"}, best.found_by
    # Among the first three hits (with its column and its table), ahead of near-miss codes
    # ("AB-1243") and of vector neighbours.
    assert hits.index(best) < 3, [h.item() for h in hits[:5]]


# --- the context ------------------------------------------------------------------------------

def _planted(ws: Workspace, table: str, item: str, column: tuple[str, str]):
    """The sheet row, sheet column and text of the cell of row `item`, column `column`."""
    info = ws.table(table)
    [(row, col, text)] = ws.db.execute(
        f'SELECT row, col, text FROM "{info.long}" WHERE row_path_text = ? AND '
        "col_path_text = ?", [item, " > ".join(column)]).fetchall()
    return row, col, text


@embeddings
@pytest.mark.parametrize("budget", [500, 1_500])
@pytest.mark.parametrize(("item", "column"), [
    ("Item 217", ("Region 3", "Q4")),
    ("Item 42", ("Region 7", "Q1")),
    ("Item 388", ("Region 0", "Q5")),
])
def test_a_large_table_gives_the_planted_cell_within_the_budget(workspace, builder, counter,
                                                                budget, item, column):
    ws, _ = workspace
    table = _table(ws, "sized_20000_50.xlsx")
    question = f"What was the {column[1]} figure of {column[0]} for {item}?"
    context = builder.build(question, budget_tokens=budget)
    assert context.tokens <= budget
    assert counter.count(context.text) == context.tokens
    assert context.tables[0] == table and context.whole[0] is False
    row, col, text = _planted(ws, table, item, column)
    lines = context.text.splitlines()
    # The schema names the column with its sheet column; the row line holds its cell there.
    from openpyxl.utils import get_column_letter

    [described] = [line for line in lines if line.endswith(f"(sheet column "
                                                           f"{get_column_letter(col)})")]
    cid = described.split(" = ")[0]
    assert " > ".join(column) in described
    header = next(line for line in lines if line.startswith("row | "))
    [row_line] = [line for line in lines if line.startswith(f"r{row} | ")]
    cells = dict(zip(header.split(" | "), row_line.split(" | "), strict=True))
    assert cells[cid] == text and item in row_line
    kinds = {i["kind"] for i in context.items}
    assert {"table", "row"} <= kinds
    rows = [i for i in context.items if i["kind"] == "row" and i["table"] == table]
    assert any(i["ref"].endswith(f"{row}") and i["path"] == [item] for i in rows)


@embeddings
def test_the_rest_of_a_large_table_comes_as_its_named_columns(builder, counter):
    # "The highest" reads one column of every row: the rows the budget has left come as the
    # row label and the named column (from the start when the question names that column by
    # its path, else after a "more rows, columns" line), so that many more of them fit.
    context = builder.build("Which item has the highest Region 5 > Q2 figure?",
                            budget_tokens=1_500, tables=["sized_20000_50__data__t0"])
    assert context.tokens <= 1_500 == counter.count(context.text) + (1_500 - context.tokens)
    lines = context.text.splitlines()
    described = {line.split(" = ")[0]: line for line in lines if " = " in line}
    more = [i for i, line in enumerate(lines) if line.startswith("more rows, columns ")]
    header = lines[more[0]].removeprefix("more rows, columns ").rstrip(":") if more else \
        next(line for line in lines if line.startswith("row | ")).removeprefix("row | ")
    columns = header.split(" | ")
    assert columns[0] == "c1" and len(columns) == 2  # the column the extreme is taken over
    assert "Region 5 > Q2" in described[columns[1]]
    compact = [line for line in lines[(more[0] if more else 0) + 1:]
               if line.startswith("r") and " | " in line]
    assert len(compact) > 60
    assert all(len(line.split(" | ")) == len(columns) + 1 for line in compact)


@embeddings
@pytest.mark.parametrize(("question", "extreme"), [
    ("Which item has the highest Region 5 > Q2 figure?", max),
    ("Which item had the lowest Q2 figure in Region 5?", min),
])
def test_an_extreme_shows_the_top_rows_of_the_named_column_first(builder, question, extreme):
    # 400 rows cannot all be listed in 500 tokens: the rows that decide the extreme come
    # first, sorted over the named column.
    table = "sized_20000_50__data__t0"
    frame = builder._frame(table)
    [key] = [a.key for a in frame.data_attrs if a.path == ("Region 5", "Q2")]
    column = frame.column(key)
    row = extreme(frame.rows, key=lambda r: column[r].number)
    context = builder.build(question, budget_tokens=500, tables=[table])
    assert context.tokens <= 500 and context.whole == [False]
    cells = context.text.split("cells (the rows the question names first):\n")[1].splitlines()
    assert cells[1].startswith(f"r{row} | {frame.row_label(row)} | ")
    assert column[row].text in cells[1].split(" | ")


@embeddings
def test_a_small_table_that_fits_is_sent_whole(builder):
    context = builder.build("How many years has Bo Chen worked?", budget_tokens=BUDGET_TOKENS,
                            tables=["hr__staff__t0"])
    assert context.whole == [True]
    for name in ("Ana Ruiz", "Bo Chen", "Gus Hart", "Tech lead"):
        assert name in context.text


@embeddings
def test_the_table_a_question_names_comes_first_among_several(workspace, builder):
    ws, _ = workspace
    for question, file_name in [("What were the salaries in Q2 2024?", "financial.xlsx"),
                                ("Which role does Carla Diaz have?", "hr.xlsx"),
                                ("How many hex nuts are in stock?", "parts.csv")]:
        context = builder.build(question, budget_tokens=600)
        assert context.tables[0] == _table(ws, file_name), (question, context.tables)
        assert context.tokens <= 600


def test_the_default_budget_is_the_settings_default(monkeypatch):
    assert CONTEXT_BUDGET == BUDGET_TOKENS == 1_500
    assert Settings.from_env({}).context_budget_tokens == 1_500
    assert Settings.from_env({"TABLELENS_CONTEXT_BUDGET_TOKENS": "500"}
                             ).context_budget_tokens == 500


# --- the command line -------------------------------------------------------------------------

def _check_items(items):
    for item in items:
        assert set(item) <= ITEM_KEYS and {"kind", "score"} <= set(item), item
        assert item["kind"] in KINDS
        assert all(value not in (None, [], "") for value in item.values()), item


@embeddings
def test_cli_context_json(capsys, big):
    code = main(["context", str(SAMPLES / "financial.xlsx"), str(big), "--question",
                 "What was the Q2 figure of Region 4 for Item 12?", "--budget", "400", "--json"])
    assert code == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    # The embedding's progress goes to stderr, batch by batch, ending at every text encoded
    # (a fresh workspace: every text is new).
    counts = [line.split()[1] for line in out.err.replace("\r", "\n").splitlines()
              if line.startswith("embedding ")]
    assert counts and counts[0].startswith("0/") and len(counts) > 2, out.err[:300]
    done, total = counts[-1].split("/")
    assert done == total and int(total) > 64
    assert set(doc) == {"schema_version", "text", "tokens", "items"}
    assert doc["schema_version"] == 1 and 0 < doc["tokens"] <= 400
    assert shared_counter().count(doc["text"]) == doc["tokens"]
    _check_items(doc["items"])
    assert "Item 12 |" in doc["text"]


def _tiny_suite(root: Path) -> Path:
    (root / "tables").mkdir(parents=True)
    (root / "tables" / "parts.csv").write_text(CODES_CSV, encoding="utf-8")
    (root / "tables" / "staff.csv").write_text(
        "Name,Team,Years\nAna Ruiz,Engineering,3\nBo Chen,Engineering,7\nEve Moss,Sales,6\n",
        encoding="utf-8")
    lines = [{"id": "q1", "table": "tables/parts.csv", "question": "What is ZX-0042?",
              "answers": ["Washer"]},
             {"id": "q2", "table": "tables/staff.csv", "question": "Which team is Bo Chen in?",
              "answers": ["Engineering"]},
             {"id": "q3", "table": "tables/parts.csv", "question": "How many hex nuts?",
              "answers": ["4500"]}]
    path = root / "questions.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@embeddings
def test_cli_context_questions_file(tmp_path, capsys):
    questions = _tiny_suite(tmp_path / "suite")
    out = tmp_path / "contexts.jsonl"
    ws_dir = tmp_path / "ws"
    code = main(["context", "--questions", str(questions), "--out", str(out), "--budget",
                 "300", "--workspace", str(ws_dir)])
    assert code == 0, capsys.readouterr().err
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2", "q3"]
    for line in lines:
        assert set(line) == {"id", "text", "tokens", "items"}
        assert 0 < line["tokens"] <= 300
        _check_items(line["items"])
    # Each question sees its own table only; each table was read once.
    assert "Washer" in lines[0]["text"] and "Bo Chen" not in lines[0]["text"]
    assert "Bo Chen" in lines[1]["text"] and "Washer" not in lines[1]["text"]
    ws = Workspace(ws_dir)
    try:
        assert len(ws.sources()) == 2
    finally:
        ws.close()


@embeddings
def test_cli_context_pools_the_paths_for_every_question(tmp_path, capsys):
    questions = _tiny_suite(tmp_path / "suite")
    out = tmp_path / "pooled.jsonl"
    tables = tmp_path / "suite" / "tables"
    code = main(["context", str(tables / "staff.csv"), str(tables / "parts.csv"),
                 "--questions", str(questions), "--out", str(out), "--budget", "1500"])
    assert code == 0, capsys.readouterr().err
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    # Both small tables fit: every question is asked against both, whatever its `table`.
    for line in lines:
        assert "Washer" in line["text"] and "Bo Chen" in line["text"]
        assert {i["table"] for i in line["items"] if i["kind"] == "table"} == \
            {"staff__staff__t0", "parts__parts__t0"}


@pytest.mark.parametrize("argv", [
    ["context", "x.csv"],
    ["context", "--question", "what?"],
    ["context", "x.csv", "--question", "q", "--questions", "q.jsonl", "--out", "o"],
    ["context", "--questions", "q.jsonl"],
])
def test_cli_context_usage_errors(argv, capsys):
    assert main(argv) == 2
    assert "error:" in capsys.readouterr().err


@embeddings
def test_a_csvs_heading_names_its_file_once_and_a_workbooks_its_sheet(builder):
    parts = builder.build("price of the Hex nut AB-1243", budget_tokens=1_500)
    assert "parts.csv\n" in parts.text or "parts.csv (" in parts.text
    assert "sheet parts" not in parts.text  # a CSV's one sheet is its file's name again
    finance = builder.build("Operating Expenses Salaries in Q2", budget_tokens=1_500)
    assert "financial.xlsx, sheet " in finance.text
