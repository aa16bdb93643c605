""""Total sales from March to May" over one row per month: the months from one end to the
other, not the two ends alone; "between March and May" reads the same. Rows that are not
periods, or a span written backwards, stay refused as a span."""

from __future__ import annotations

MONTHS = ("Month,Sales\nJanuary,100\nFebruary,120\nMarch,130\nApril,125\nMay,140\n"
          "June,150\n")


def test_a_span_of_period_rows_is_every_row_between_its_ends(ask):
    total = ask(MONTHS, "What were total sales from March to May?")
    assert total.values == [395]  # 130 + 125 + 140
    assert sorted(e.ref for e in total.evidence) == ["B4", "B5", "B6"]
    assert ask(MONTHS, "What was the average sales between March and May?").values \
        == [131.666667]


def test_a_span_of_rows_that_are_not_periods_or_backwards_is_refused(ask):
    stores = "Store,Sales\nLeeds,10\nYork,12\nHull,15\nBath,9\n"
    assert ask(stores, "What were total sales from Leeds to Hull?").answer is None
    assert ask(MONTHS, "What were total sales from May to March?").answer is None
