""""Which region had the most outages" over a register of outages (the file's name says a row
is an outage, and a key column holds a different value in each row): the region named on the
most rows. A summary with a row per region and month, or a file that does not say what its
rows are, is refused: counting its rows counts no outages."""

from __future__ import annotations

OUTAGES = ("Outage ID,Region,Customers Affected\nOUT-1,North,120\nOUT-2,South,900\n"
           "OUT-3,North,40\nOUT-4,West,300\nOUT-5,North,75\nOUT-6,South,60\n")
SUMMARY = ("Region,Month,Customers Affected\nNorth,Jan,120\nSouth,Jan,900\nNorth,Feb,40\n"
           "West,Feb,300\nNorth,Mar,75\nSouth,Mar,60\n")


def test_the_group_named_on_most_rows_of_a_register_is_the_answer(ask, tmp_path):
    path = tmp_path / "utility_outages.csv"
    path.write_text(OUTAGES, encoding="utf-8")
    answer = ask(path, "Which region had the most outages?")
    assert answer.values == ["North"]


def test_a_summary_or_a_file_that_does_not_name_its_rows_is_refused(ask, tmp_path):
    summary = tmp_path / "outages_by_month.csv"
    summary.write_text(SUMMARY, encoding="utf-8")
    assert ask(summary, "Which region had the most outages?").answer is None
    # t0.csv: nothing says what a row is.
    assert ask(OUTAGES, "Which region had the most outages?").answer is None
