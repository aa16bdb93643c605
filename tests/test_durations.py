"""How long rows lasted, from a start and an end column: a register of outages (dates), a
festival line-up (times of day), an incident log (date-times), a helpdesk queue with tickets
still open. Each on a small workbook or CSV in a real workspace, answered offline; the answer
says its unit and cites both cells of every row it measured. A row without an end, or that
ends before it starts, is refused rather than left out, unless the question itself keeps to
the rows that ended."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from agent.events import Answer
from agent.run import answer_question
from storage.workspace import Workspace

D = dt.date
T = dt.time
DT = dt.datetime


def _book(path: Path, rows: Sequence[Sequence[Any]], formats: dict[int, str]) -> Path:
    """One sheet of rows, with a number format per column (1-based) for the typed cells."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    for row in rows:
        ws.append(list(row))
    for col, form in formats.items():
        for (cell,) in ws.iter_rows(min_row=2, min_col=col, max_col=col):
            cell.number_format = form
    wb.save(path)
    return path


@pytest.fixture
def ask(tmp_path: Path):
    """Answer questions over one file in its own workspace."""
    opened: list[Workspace] = []

    def run(path: Path, question: str) -> Answer:
        if not opened:
            opened.append(Workspace(tmp_path / "ws"))
            opened[0].add_file(path)
        return answer_question(opened[0], question)

    yield run
    for ws in opened:
        ws.close()


def _cells(answer: Answer) -> set[str]:
    return {e.ref for e in answer.evidence}


OUTAGES = [
    ["Outage ID", "Region", "Start Date", "End Date", "Customers Affected"],
    ["OUT-1", "North", D(2023, 1, 22), D(2023, 1, 24), 16330],   # 2 days, row 2
    ["OUT-2", "East", D(2023, 2, 2), D(2023, 2, 6), 12760],      # 4 days
    ["OUT-3", "South", D(2023, 2, 27), D(2023, 3, 1), 660],      # 2 days (over February)
    ["OUT-4", "North", D(2023, 11, 8), D(2023, 11, 13), 8210],   # 5 days, row 5
    ["OUT-5", "West", D(2023, 12, 30), D(2024, 1, 2), 430],      # 3 days (over the year)
    ["Total", None, None, None, 38390],                          # a summary row, row 7
]


@pytest.fixture
def outages(tmp_path: Path) -> Path:
    return _book(tmp_path / "utility_outages_2023.xlsx", OUTAGES, {3: "dd mmm yyyy",
                                                                   4: "dd mmm yyyy"})


def test_the_average_of_date_spans_is_in_days_and_cites_both_dates_of_each_row(ask, outages):
    answer = ask(outages, "On average, how many days did an outage last?")
    assert answer.values == [3.2] and answer.answer == "3.2 days" and answer.unit == "days"
    # Both dates of every outage (not the Total row, which has none).
    assert _cells(answer) == {f"{c}{r}" for c in "CD" for r in range(2, 7)}
    assert {e.value for e in answer.evidence if e.ref == "C2"} == {"2023-01-22"}


def test_the_row_that_lasted_longest_is_named_with_its_two_dates(ask, outages):
    answer = ask(outages, "Which outage lasted the longest?")
    assert answer.values == ["OUT-4"] and answer.answer == "OUT-4 (5 days)"
    assert _cells(answer) == {"A5", "C5", "D5"}


@pytest.mark.parametrize(("question", "text", "value"), [
    ("How long was the longest outage?", "5 days", 5),
    ("What was the total downtime in hours?", "384 hours", 384),   # 16 days of dates
    ("How long did outage OUT-3 last?", "2 days", 2),
    ("What was the shortest outage, in weeks?", "0.286 weeks", 0.285714),
])
def test_a_duration_itself_is_said_in_its_unit(ask, outages, question, text, value):
    answer = ask(outages, question)
    assert answer.values == [value] and answer.answer == text, answer.error


LINE_UP = [
    ["Stage", "Day", "Start Time", "End Time", "Act"],
    ["Main", "Friday", T(13, 0), T(13, 30), "Low Tide"],     # 30 min, row 2
    ["Main", "Friday", T(14, 35), T(15, 50), "Fennel St"],   # 75 min
    ["Tent", "Friday", T(14, 0), T(14, 45), "Quiet Ones"],   # 45 min
    ["Main", "Sunday", T(17, 25), T(19, 25), "Ochre Sky"],   # 120 min, row 5
    ["Tent", "Sunday", T(18, 10), T(19, 40), "Tidal"],       # 90 min
]


@pytest.fixture
def line_up(tmp_path: Path) -> Path:
    return _book(tmp_path / "festival_line_up.xlsx", LINE_UP, {3: "hh:mm", 4: "hh:mm"})


def test_times_of_day_give_minutes(ask, line_up):
    answer = ask(line_up, "On average, how many minutes does a set last?")
    assert answer.values == [72] and answer.answer == "72 minutes" and answer.unit == "minutes"
    assert _cells(answer) == {f"{c}{r}" for c in "CD" for r in range(2, 7)}


def test_the_act_with_the_longest_set_and_a_filtered_total(ask, line_up):
    longest = ask(line_up, "Which act has the longest set?")
    assert longest.values == ["Ochre Sky"] and _cells(longest) == {"C5", "D5", "E5"}
    friday = ask(line_up, "How many hours of sets were on the Main stage on Friday in total?")
    assert friday.values == [1.75] and friday.answer == "1.75 hours"
    assert _cells(friday) == {"C2", "D2", "C3", "D3"}


def test_times_of_day_written_as_text_are_hours_and_minutes(ask, tmp_path):
    # "09:30" as text reads as 9 min 30 s: a column of times of day is read as 9 h 30 min.
    path = tmp_path / "shifts.csv"
    path.write_text("Shift,Clock in,Clock out\nEarly,06:00,14:30\nLate,14:00,22:15\n"
                    "Split,10:45,13:00\n", encoding="utf-8")
    answer = ask(path, "What was the longest shift in hours?")
    assert answer.values == [8.5] and answer.answer == "8.5 hours"


INCIDENTS = [
    ["Incident", "Started", "Resolved", "Severity"],
    ["INC-1", DT(2024, 3, 1, 9, 15), DT(2024, 3, 1, 11, 45), "High"],    # 2.5 h
    ["INC-2", DT(2024, 3, 4, 22, 0), DT(2024, 3, 5, 1, 30), "Low"],      # 3.5 h, past midnight
    ["INC-3", DT(2024, 3, 9, 8, 0), DT(2024, 3, 9, 8, 45), "High"],      # 0.75 h
]


def test_date_times_give_hours_to_the_minute(ask, tmp_path):
    path = _book(tmp_path / "incident_log.xlsx", INCIDENTS,
                 {2: "yyyy-mm-dd hh:mm", 3: "yyyy-mm-dd hh:mm"})
    answer = ask(path, "What was the total downtime in hours?")
    assert answer.values == [6.75] and answer.answer == "6.75 hours" and answer.unit == "hours"
    assert {e.value for e in answer.evidence if e.ref == "B3"} == {"2024-03-04T22:00"}


def test_date_times_written_as_text_with_offsets(ask, tmp_path):
    path = tmp_path / "incident_log.csv"
    path.write_text("Incident,Started,Resolved\n"
                    "INC-1,2024-03-01 09:15,2024-03-01 11:45\n"
                    "INC-2,2024-03-04T22:00:00+01:00,2024-03-04T23:30:00+00:00\n",
                    encoding="utf-8")
    # INC-2 starts at 21:00 UTC: 2.5 hours, not 1.5.
    answer = ask(path, "How long did incidents take on average, in hours?")
    assert answer.values == [2.5] and answer.answer == "2.5 hours"


TICKETS = [
    ["Ticket ID", "Opened", "Closed", "Priority"],
    ["T-101", D(2024, 2, 2), D(2024, 2, 5), "Medium"],   # 3 days, row 2
    ["T-102", D(2024, 2, 2), D(2024, 2, 8), "Low"],      # 6 days
    ["T-103", D(2024, 2, 7), None, "High"],              # still open, row 4
    ["T-104", D(2024, 2, 9), D(2024, 2, 19), "High"],    # 10 days, row 5
    ["T-105", D(2024, 2, 11), None, "Low"],              # still open, row 6
]


@pytest.fixture
def tickets(tmp_path: Path) -> Path:
    return _book(tmp_path / "helpdesk_tickets.xlsx", TICKETS, {2: "dd-mmm-yyyy",
                                                               3: "dd-mmm-yyyy"})


def test_rows_still_open_are_refused_and_counted(ask, tickets):
    answer = ask(tickets, "How long was the longest ticket open?")
    assert answer.answer is None and answer.values == []
    message = answer.error.message
    assert "2 of the 5 rows (T-103, T-105) have no Closed date" in message, message
    assert '"... that have closed"' in message
    assert ask(tickets, "On average, how many days was a ticket open?").answer is None
    one = ask(tickets, "How many days did ticket T-103 stay open?")
    assert one.answer is None and "T-103 has no Closed date" in one.error.message


def test_a_question_about_the_closed_rows_measures_those(ask, tickets):
    answer = ask(tickets, "Among the tickets that have been closed, how long was the longest "
                          "one open, in days?")
    assert answer.values == [10] and answer.answer == "10 days"
    assert _cells(answer) == {"B5", "C5"}
    average = ask(tickets, "On average, how many days did a closed ticket stay open?")
    assert average.values == [6.333333] and average.answer == "6.33 days"
    assert not _cells(average) & {"B4", "C4", "B6", "C6"}
    high = ask(tickets, "For the High priority tickets that have been closed, what was the "
                        "average number of days from opening to closing?")
    assert high.values == [10] and high.confidence_label != "low"
    assert ask(tickets, "Which ticket took the longest to close?").values == ["T-104"]
    finished = ask(tickets, "What was the average time, in days, for finished tickets?")
    assert finished.values == [6.333333]


def test_a_column_the_duration_would_not_read_is_refused(ask, tickets):
    grouped = ask(tickets, "What was the average duration of closed tickets by priority?")
    assert grouped.answer is None and "Priority" in grouped.error.message


def test_one_named_row(ask, tickets):
    answer = ask(tickets, "How many days did ticket T-104 stay open?")
    assert answer.values == [10] and answer.answer == "10 days"
    assert _cells(answer) == {"B5", "C5"}


def test_an_end_before_its_start_is_refused(ask, tmp_path):
    path = tmp_path / "projects.csv"
    path.write_text("Project,Start date,End date\nAlpha,2024-01-10,2024-02-10\n"
                    "Beta,2024-03-01,2024-02-20\n", encoding="utf-8")
    answer = ask(path, "What was the average project duration in days?")
    assert answer.answer is None and "Beta" in answer.error.message
    assert "End date before Start date" in answer.error.message


def test_several_start_and_end_columns_are_named_unless_the_question_picks_one(ask, tmp_path):
    path = tmp_path / "tickets.csv"
    path.write_text("Ticket,Opened,Resolved,Closed\nA-1,2024-01-02,2024-01-04,2024-01-09\n"
                    "A-2,2024-01-03,2024-01-08,2024-01-10\n", encoding="utf-8")
    vague = ask(path, "How long was the longest ticket open?")
    assert vague.answer is None
    assert "Opened to Resolved; Opened to Closed" in vague.error.message
    picked = ask(path, "Which ticket took the longest to resolve?")
    assert picked.values == ["A-2"] and picked.answer == "A-2 (5 days)"


def test_a_stated_duration_column_is_read_by_the_other_rules(ask, tmp_path):
    # The table says how long each took (a duration excluding weekends, say): it is read,
    # never recomputed from the dates.
    path = tmp_path / "jobs.csv"
    path.write_text("Job,Start date,End date,Duration (days)\nJ-1,2024-01-01,2024-01-08,5\n"
                    "J-2,2024-01-03,2024-01-05,2\n", encoding="utf-8")
    assert ask(path, "What was the average duration in days?").values == [3.5]


def test_how_long_is_never_a_date(ask, tmp_path):
    # Beside a stated "Resolution hours" the dates are not measured; nor is a date read out
    # for "how long" (the rules once answered the Opened cell).
    path = tmp_path / "tickets.csv"
    path.write_text("Ticket,Opened,Closed,Resolution hours\n"
                    "T-1,2024-01-01 09:00,2024-01-02 09:00,30\n"
                    "T-2,2024-01-03 09:00,2024-01-05 09:00,10\n", encoding="utf-8")
    opened = ask(path, "How long was ticket T-2 open?")
    assert opened.answer is None and "Opened holds dates, not durations" in opened.error.message
    assert ask(path, "Which ticket took the longest to resolve?").values != ["T-2"]
    assert ask(path, "When was ticket T-2 opened?").values == ["2024-01-03 09:00"]


def test_months_are_refused_and_a_date_question_is_not_a_duration(ask, outages):
    months = ask(outages, "How many months did outage OUT-4 last?")
    assert months.answer is None and "ask in days or weeks" in months.error.message
    # "In which month did ... end" asks a date: no duration is computed.
    when = ask(outages, "What was the end date of outage OUT-2?")
    assert when.values == ["06 Feb 2023"] or when.answer is None


def test_a_length_is_not_a_duration(ask, tmp_path):
    # "How long" of a scheme with a length in km beside its start and end dates: the length.
    path = tmp_path / "road_schemes.csv"
    path.write_text("Scheme,Length (km),Start date,End date\nA-road,12.5,2023-01-01,2023-06-30\n"
                    "Ring road,30.2,2023-02-01,2024-02-01\n", encoding="utf-8")
    answer = ask(path, "Which scheme is the longest?")
    assert answer.values in ([], ["Ring road"]) and "days" not in (answer.answer or "")
    lasted = ask(path, "Which scheme took the longest?")
    assert lasted.values == ["Ring road"] and lasted.answer == "Ring road (365 days)"


@pytest.mark.parametrize(("text", "kind", "number", "scale"), [
    ("13:00", "duration", 780, 60),        # text: read as 13 min 00 s
    ("13:00", "duration", 46800, 1),       # a spreadsheet time
    ("1:05 PM", "duration", 47100, 1),
    ("13:00:00", "duration", 46800, 1),
    ("1:44.24", "duration", 104.24, None),  # a time taken, not a time of day
    ("Friday", "text", None, None),
])
def test_the_scale_of_a_time_of_day(text, kind, number, scale):
    from agent.frame import Value
    from agent.moments import clock_scale

    assert clock_scale([Value(text, number, kind, "s", "A1")]) == scale


def test_points_in_time_and_their_sql_agree_across_offsets(tmp_path):
    import sqlite3

    from agent.moments import date_moment, elapsed, in_words

    start, end = "2024-03-04T22:00:00+01:00", "2024-03-04T23:30:00Z"
    hours = elapsed(date_moment(start), date_moment(end), "hours")
    assert hours == 2.5 and date_moment("2021-03") is None and date_moment("--10-17") is None
    with sqlite3.connect(tmp_path / "t.db") as db:
        (sql,) = db.execute("SELECT ROUND((julianday(?) - julianday(?)) * 24.0, 6)",
                            [end, start]).fetchone()
    assert sql == hours
    assert [in_words(v, "days") for v in (1, 2, 3.456, 0.104167, 1234.5)] == [
        "1 day", "2 days", "3.46 days", "0.104 days", "1,234.5 days"]
