"""Offline answers from documents: a number quoted from the one sentence that clearly answers
the question, cited as text Evidence, else a refusal; questions about a docx table and a pdf
table answered with cell evidence like any table's."""

from __future__ import annotations

import io

import pytest

from agent.events import Evidence, TextEvidence
from agent.run import answer_question
from agent.text_answer import asks_quantity, decide, decide_name, extract, name_for
from storage.workspace import Workspace
from tests.documents_samples import docx_bytes, prose_docx, text_pdf

NOTES = ("Staff\n\nThe company had 42 employees at the end of June. Revenue grew.\n\n"
         "Freight costs rose by $1.2 million in 2019 and by $0.8 million in 2018.\n")


def answer_of(question: str, texts: list[str]) -> str | None:
    best = decide(extract(question, [(t, None) for t in texts]))
    return best.text if best else None


@pytest.mark.parametrize(("question", "texts", "expected"), [
    ("How many employees did the company have at the end of June?",
     ["The company had 42 employees at the end of June."], "42"),
    ("What was the effective interest rate of the liability component?",
     ["The effective interest rate of the liability component is 6.4% for the 2021 Notes."],
     "6.4%"),
    ("How much did depreciation decrease by in 2019?",
     ["Additionally, depreciation decreased $0.5 million in 2019, due to timing."],
     "$0.5 million"),
    # "of" ties the one number to what it measures: the charges, not the loss asked for.
    ("What was the operating income (loss) of the Medical segment in 2019?",
     ["The Medical segment reported an operating loss in 2019, primarily due to $9.8 million "
      "of restructuring charges related to the consolidation of our Tijuana facility."],
     None),
    # A verb before the number ties it to its subject: the expenditure, not the activities.
    ("What was the total spent on charitable activities in 2024?",
     ["Total expenditure was £43.5 million, of which the majority was spent on our three "
      "charitable activities."], None),
    ("What was the total expenditure in 2024?",
     ["Total expenditure was £43.5 million, of which the majority was spent on our three "
      "charitable activities."], "£43.5 million"),
    # A part of a number ("2 of our remaining 5") is no "of" tie; which of the two is asked
    # is not said beside either.
    ("How many on-premise data centres were closed?",
     ["Over the same period we closed 2 of our remaining 5 on-premise data centres, which "
      "reduced on-premise infrastructure costs."], None),
    ("How much were the restructuring charges of the Medical segment in 2019?",
     ["The Medical segment reported an operating loss in 2019, primarily due to $9.8 million "
      "of restructuring charges related to the consolidation of our Tijuana facility."],
     "$9.8 million"),
    # Two numbers in the best sentence, a range, a date's day, other words, two sentences
    # that disagree: all refused.
    ("How much did freight costs rise?", [NOTES], None),
    ("How many day terms do trade receivables generally have?",
     ["Trade receivables generally have 30 to 90 day terms."], None),
    ("How many employees were hired?", ["Employees were hired on June 30, 2019."], None),
    ("How many offices does the company have?", ["The company had 42 employees."], None),
    ("How many employees did the company have?",
     ["The company had 42 employees.", "The company had 40 employees."], None),
    ("Why did the company hire?", ["The company had 42 employees."], None),
    # A percentage answers only a question that can take one, and "percent" takes only one.
    ("What is the increase in cable revenue from 2017 to 2018?",
     ["Cable revenue increased by 1% in 2018 as customers moved to higher tiers."], None),
    ("What is the percentage increase in cable revenue in 2018?",
     ["Cable revenue increased by $38 million in 2018."], None),
    ("What is the percentage increase in cable revenue in 2018?",
     ["The percentage increase in cable revenue was 1% in 2018."], "1%"),
    ("What was the growth rate of cable revenue in 2018?",
     ["The growth rate of cable revenue was 1% in 2018."], "1%"),
    ("What was the growth of cable revenue in 2018?",
     ["The growth of cable revenue was $38 million in 2018."], "$38 million"),
    # A rate named without "percent" takes a percentage; the unit stays with the number.
    ("What was customer churn?",
     ["Customer churn fell to 3.1 percent, the lowest since the company was founded in 2015."],
     "3.1 percent"),
    ("By how much was the travel budget cut?", ["The travel budget was cut by 15 percent."],
     "15 percent"),
    ("What was the total marketing spend for the year?",
     ["Total marketing spend for the year was 1.8 million euros."], "1.8 million euros"),
    ("What was the average response time of the medical team?",
     ["The average response time of the on-site medical team was 4 minutes."], "4 minutes"),
    # A number tied to another period than the question's is not a candidate; a verb's
    # forms meet ("ship" / "shipped"); a forecast is no fact.
    ("How many orders did the warehouse ship in Q3 2025?",
     ["The warehouse shipped 18,450 orders in Q3 2025, up from 16,200 orders in Q2 2025."],
     "18,450"),
    ("How many orders did the warehouse ship in Q2 2025?",
     ["The warehouse shipped 18,450 orders in Q3 2025, up from 16,200 orders in Q2 2025."],
     "16,200"),
    ("How many tickets were there in Q4?",
     ["We expect ticket volume to reach about 20,000 in Q4 2025."], None),
    # "How many" counts things, which no money amount is.
    ("How many options were exercised?",
     ["The total intrinsic value of options exercised was $49.8 million."], None),
    ("How many options were exercised?", ["Employees exercised 1,387 options."], "1,387"),
])
def test_extract_only_clear_numbers(question: str, texts: list[str],
                                    expected: str | None) -> None:
    assert answer_of(question, texts) == expected


@pytest.mark.parametrize(("question", "texts", "expected"), [
    # Of several numbers, the one the question's words name beside it through "of" or a verb.
    ("What was the gross federal net operating loss in 2023?",
     ["As of December 31, 2023, we had $812.5 million of gross federal net operating loss "
      "carryforwards, consisting of $400.1 million from the Alpha acquisition and $112.0 "
      "million from the Beta acquisition in 2016."], "$812.5 million"),
    ("How much were freight costs?",
     ["Freight costs were $1.2 million and storage costs were $0.8 million."], "$1.2 million"),
    # Each number's clause names its year: the question's year picks one.
    ("What was the cost of internally-developed software in 2023?",
     ["In addition, a total of $4.2 million of internally-developed software costs during "
      "2023 and $3.9 million of internally-developed software costs during 2022 were "
      "capitalized."], "$4.2 million"),
    ("What was the cost of internally-developed software in 2022?",
     ["In addition, a total of $4.2 million of internally-developed software costs during "
      "2023 and $3.9 million of internally-developed software costs during 2022 were "
      "capitalized."], "$3.9 million"),
    # Refused: a list of numbers ("respectively"), a year the question does not say among
    # several, and two numbers named as well as each other.
    ("What was the amount of pre-tax losses in 2022?",
     ["In 2023 and 2022, we had pre-tax losses of $1,200 and $1,500 respectively."], None),
    ("What was the cost of internally-developed software?",
     ["A total of $4.2 million of internally-developed software costs during 2023 and $3.9 "
      "million of internally-developed software costs during 2022 were capitalized."], None),
    ("How much were the freight and storage costs?",
     ["Freight costs were $1.2 million and storage costs were $0.8 million."], None),
])
def test_a_number_named_beside_the_question_s_words_is_chosen(question: str, texts: list[str],
                                                               expected: str | None) -> None:
    assert answer_of(question, texts) == expected


@pytest.mark.parametrize(("question", "texts", "expected"), [
    # A period the question asks about that the sentence names only as what its number is
    # compared with is no answer for it (a browser tester's memo: each was answered, 85%).
    ("What was net profit in 2023?",
     ["Net profit for 2024 was $5.2 million, higher than in 2023."], None),
    ("What was net profit in 2024?",
     ["Net profit for 2024 was $5.2 million, higher than in 2023."], "$5.2 million"),
    ("What were sales in H2?", ["Sales in H1 were 1,200 units, 10% below H2."], None),
    ("What was churn in Q1?", ["Churn in Q4 was 2.1%, half the rate seen in Q1."], None),
    ("What was the average waiting time in December?",
     ["Average waiting time in January was 14 minutes, down from December."], None),
    ("What was the fuel cost in Q2?",
     ["Fuel cost for the quarter was £214,500, 6% higher than in Q2."], None),
    # Its own period after an aside, the comparison after it: answered.
    ("What is the increase in rental revenues in 2019?",
     ["Rental revenues increased $13.8 million, or 5.3%, in 2019 versus a year ago."],
     "$13.8 million"),
    # Another year's figure in brackets after it ("(2023: 1,790)") is not the number's year.
    ("How many relevant full-pay employees were included in the 2023 calculation?",
     ["Our figures are calculated from the pay of 1,842 relevant full-pay employees on 5 "
      "April 2024 (2023: 1,790; 2022: 1,731)."], None),
    ("How many relevant full-pay employees were included in the 2024 calculation?",
     ["Our figures are calculated from the pay of 1,842 relevant full-pay employees on 5 "
      "April 2024 (2023: 1,790; 2022: 1,731)."], "1,842"),
])
def test_a_period_named_only_as_a_comparison_is_no_answer(question: str, texts: list[str],
                                                          expected: str | None) -> None:
    assert answer_of(question, texts) == expected


def test_quantity_questions() -> None:
    assert asks_quantity("How much was the fee?")
    assert not asks_quantity("What are the charges in 2017 and 2018 respectively?")
    assert not asks_quantity("Which country is the terminal in?")
    assert asks_quantity("What was total marketing spend for the year?")
    # "What is" alone opens many questions that ask for no quantity.
    assert not asks_quantity("What is included in the cost of equipment sales?")
    assert asks_quantity("What was customer churn?")
    assert asks_quantity("By how much was the travel budget cut?")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    root = tmp_path_factory.mktemp("answers")
    ws = Workspace(root / "ws")
    ws.add_file(io.BytesIO(NOTES.encode()), "notes.txt")
    ws.add_file(io.BytesIO(docx_bytes()), "staff.docx")
    ws.add_file(text_pdf(root))
    yield ws
    ws.close()


def test_a_question_about_the_prose_is_answered_with_text_evidence(workspace) -> None:
    answer = answer_question(workspace,
                             "How many employees did the company have at the end of June?")
    assert answer.answer == "42" and answer.values == ["42"]
    [cited] = answer.evidence
    assert isinstance(cited, TextEvidence)
    assert cited.text == "The company had 42 employees at the end of June."
    assert cited.to_json_dict()["kind"] == "text"
    assert cited.location.start == 0 and cited.location.end == len(cited.text)
    chunk = workspace.chunk(cited.chunk)
    paragraph_start = chunk.chunk.start
    assert chunk.text[cited.location.start - paragraph_start:
                      cited.location.end - paragraph_start] == cited.text
    assert answer.steps[-1].retrieved[0]["kind"] == "chunk"


def test_a_question_the_text_does_not_clearly_answer_is_refused(workspace) -> None:
    answer = answer_question(workspace, "Why did freight costs rise?")
    assert answer.answer is None
    assert not any(isinstance(e, TextEvidence) for e in answer.evidence)
    # The refusal says the documents were read too, not only the table it tried.
    assert "no sentence of notes.txt, staff.docx" in answer.error.message


def test_a_refusal_names_a_documents_table_as_people_know_it(workspace) -> None:
    """A Word file's or a pdf's table is no sheet: "staff.docx, table 1", "report.pdf, page 1,
    table 1", not the grid's id "table1"."""
    staff = next(s for s in workspace.sources() if s.name == "staff.docx")
    answer = answer_question(workspace, "How many penguins live on the moon?",
                             table_ids=workspace.table_ids(staff.sha256))
    assert "do not match anything in staff.docx, table 1;" in answer.error.message
    shown = [answer.error.message] + [f"{s.title} {s.detail or ''} "
                                      f"{s.table.title if s.table else ''}"
                                      for s in answer.steps]
    assert any("How the question matched staff.docx (table 1)" in text for text in shown)
    assert not any("sheet table1" in text or "sheet page1" in text for text in shown)
    report = next(s for s in workspace.sources() if s.name == "report.pdf")
    answer = answer_question(workspace, "How many penguins live on the moon?",
                             table_ids=workspace.table_ids(report.sha256))
    assert "do not match anything in report.pdf, page 1, table 1;" in answer.error.message


def test_a_docx_table_question_is_answered_from_its_cells(workspace) -> None:
    staff = next(s for s in workspace.sources() if s.name == "staff.docx")
    answer = answer_question(workspace, "What was the Oslo headcount in 2019?",
                             table_ids=workspace.table_ids(staff.sha256))
    assert answer.values == [30]
    assert [(e.sheet, e.ref) for e in answer.evidence if isinstance(e, Evidence)] == \
        [("table1", "B3")]


def test_a_pdf_table_question_is_answered_from_its_cells(workspace) -> None:
    report = next(s for s in workspace.sources() if s.name == "report.pdf")
    answer = answer_question(workspace, "What was the revenue in 2018?",
                             table_ids=workspace.table_ids(report.sha256))
    assert answer.values == [1000]
    assert [(e.sheet, e.ref) for e in answer.evidence] == [("page1-table1", "C2")]


def test_text_evidence_round_trips_in_an_answer() -> None:
    from agent.events import Answer

    data = {"answer": "42", "values": ["42"], "evidence": [
        {"kind": "text", "source": "n.txt", "file": "n", "chunk": "n__c0",
         "location": {"paragraph": 1, "start": 0, "end": 10}, "text": "The compan"},
        {"table": "t", "sheet": "s", "ref": "A1", "text": "1", "value": 1}]}
    answer = Answer.model_validate(data)
    assert isinstance(answer.evidence[0], TextEvidence) and isinstance(answer.evidence[1],
                                                                       Evidence)
    assert answer.to_json_dict()["evidence"] == data["evidence"]




@pytest.fixture(scope="module")
def text_only(tmp_path_factory) -> Workspace:
    ws = Workspace(tmp_path_factory.mktemp("text_only") / "ws")
    ws.add_file(io.BytesIO(NOTES.encode()), "notes.txt")
    yield ws
    ws.close()


def test_a_text_answer_s_steps_never_say_there_was_no_answer(text_only) -> None:
    """The tables' refusal comes before the text is read: its step says the tables gave no
    answer, not that there is none, since the next step quotes the text."""
    answer = answer_question(text_only,
                             "How many employees did the company have at the end of June?")
    assert answer.answer == "42"
    titles = [s.title for s in answer.steps if s.node == "answer" and s.phase == "end"]
    assert titles == ["No answer from the tables", "Quoted from notes.txt"]


def test_a_chat_of_documents_only_is_not_told_to_upload_a_file(text_only) -> None:
    answer = answer_question(text_only,
                             "How many employees did the company have at the end of March?")
    assert answer.answer is None
    message = answer.error.message
    assert "upload a file" not in message
    assert "no uploaded file holds a table, and no passage of text clearly states" in message


INCIDENT = ("Incident report - Data center outage\nDate: 12 March 2023\n"
            "Duration: 4 hours 20 minutes\n"
            "Root cause: a failed power distribution unit in rack 14.\n"
            "Affected customers: 312\nEstimated cost: 48,500 USD\n")


def test_a_line_of_a_report_of_short_lines_answers_on_its_own(tmp_path) -> None:
    """Each "Key: value" line is a sentence of its own, and its label is part of it: the line
    under the report's first line (its section) answers with its number."""
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(io.BytesIO(INCIDENT.encode()), "incident_report.txt")
        answer = answer_question(ws, "How many customers were affected by the outage?")
    finally:
        ws.close()
    assert answer.answer == "312" and answer.values == ["312"]
    [cited] = answer.evidence
    assert isinstance(cited, TextEvidence) and cited.text == "Affected customers: 312"
    assert cited.location.section == "Incident report - Data center outage"


@pytest.mark.parametrize(("question", "texts", "expected"), [
    ("Who is the head of sales?", ["The head of sales is Maria Lopez. Next review is in May."],
     "Maria Lopez"),
    ("Who is head of sales?", ["Maria Lopez is the head of sales, since 2021."], "Maria Lopez"),
    ("Who is the company's auditor?", ["The Company’s auditor is Ernst & Young LLP."],
     "Ernst & Young LLP"),
    ("Who is the head of sales?", ["The head of sales is Maria Lopez, who joined in 2021.",
                                   "Maria Lopez is the head of sales."], "Maria Lopez"),
    # A title and initials are part of the name, not the end of a sentence.
    ("Who is the head of sales?", ["The head of sales is Mr. John Smith. He joined in 2019."],
     "Mr. John Smith"),
    ("Who is the clinic's director?", ["The clinic's director is Dr. Amara Okafor."],
     "Dr. Amara Okafor"),
    ("Who is the head of sales?", ["The head of sales is J. R. Smith."], "J. R. Smith"),
    ("Who is the head of sales?", ["Our team grew. Mr. Smith is the head of sales."],
     "Mr. Smith"),
    # Another person, another tie of the role to the verb, another role, another tense, no
    # name, a title with no name after it: refused.
    ("Who is the head of sales?", ["The head of sales is Maria Lopez.",
                                   "The head of sales is John Smith."], None),
    ("Who is the head of sales?", ["The head of sales is Maria Lopez.",
                                   "From May the head of sales is John Smith."], None),
    ("Who is the head of sales?", ["Maria Lopez is the head of sales in Europe."], None),
    ("Who is the head of sales?", ["In Europe, the head of sales is Maria Lopez."], None),
    ("Who is the head of sales?", ["The head of sales is Maria Lopez and John Smith."], None),
    ("Who was the head of sales?", ["The head of sales is Maria Lopez."], None),
    ("Who is the head of sales?", ["The head of sales is responsible for the North."], None),
    ("Who is the head of sales?", ["The head of sales is New York based."], None),
    ("Who is the head of sales?", ["The head of sales is not Maria Lopez."], None),
    ("Who is the head of sales?", ["The head of sales is Mr."], None),
    ("Who is the head of sales?", ["The head of sales is Dr"], None),
    ("Who is a director?", ["Maria Lopez is a director."], None),
    ("Who are the auditors?", ["The auditors are KPMG."], None),
])
def test_who_is_answered_by_the_name_a_sentence_states(question: str, texts: list[str],
                                                      expected: str | None) -> None:
    best = decide_name(name_for(question, texts))
    assert (best.text if best else None) == expected


def test_who_is_the_head_of_sales_is_answered_from_the_text(tmp_path) -> None:
    """The table's refusal ("head", "sales" are not its words) is followed by the sentence
    that names the head of sales, cited."""
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(io.BytesIO(docx_bytes()), "staff.docx")
        ws.add_file(io.BytesIO(b"Quarterly Operations Report\n\nThis report summarises "
                               b"regional sales for 2023.\n\nThe head of sales is Maria Lopez."
                               b" Next review is scheduled for 14 February 2024.\n"),
                    "ops_notes.txt")
        answer = answer_question(ws, "Who is the head of sales?")
    finally:
        ws.close()
    assert answer.answer == "Maria Lopez" and answer.values == ["Maria Lopez"]
    [cited] = answer.evidence
    assert isinstance(cited, TextEvidence) and cited.text == "The head of sales is Maria Lopez."
    assert cited.source == "ops_notes.txt"


STAFF = "The head of sales is Mr. John Smith. He joined in 2019."
CLINIC = "The clinic's director is Dr. Amara Okafor. The clinic opened in 2015."


@pytest.mark.parametrize("kind", [".txt", ".docx", ".pdf"])
def test_a_name_after_a_title_is_answered_whole_with_its_whole_sentence(tmp_path,
                                                                        kind: str) -> None:
    """"Mr." and "Dr." end no sentence: the name after them is the answer, never the title
    alone ("Mr", cited as "The head of sales is Mr.")."""
    ws = Workspace(tmp_path / "ws")
    try:
        for stem, text in (("staff", STAFF), ("clinic", CLINIC)):
            if kind == ".pdf":
                ws.add_file(text_pdf(tmp_path, f"<html><body><p>{text}</p></body></html>", stem))
            else:
                data = prose_docx(text) if kind == ".docx" else f"{text}\n".encode()
                ws.add_file(io.BytesIO(data), stem + kind)
        sales = answer_question(ws, "Who is the head of sales?")
        director = answer_question(ws, "Who is the clinic's director?")
    finally:
        ws.close()
    assert sales.answer == "Mr. John Smith"
    assert [e.text for e in sales.evidence] == ["The head of sales is Mr. John Smith."]
    assert director.answer == "Dr. Amara Okafor"
    assert [e.text for e in director.evidence] == ["The clinic's director is Dr. Amara Okafor."]
