""""What was the average on-time rate?" over depots whose Total row states the overall rate:
the mean of the rows' rates weighs a small depot as a large one, and which figure is meant is
not said, so it is refused with the stated figure (a browser tester's report: 94.33% was
answered, labelled high, beside a Total row of 94.5%)."""

from __future__ import annotations

DEPOTS = ("Depot,Deliveries,Late deliveries,On-time rate\nLeeds,1240,62,95.0%\n"
          "Hull,980,49,95.0%\nYork,1105,72,93.0%\nTotal,3325,183,94.5%\n")


def test_the_mean_of_rates_beside_a_stated_overall_rate_is_refused(ask):
    answer = ask(DEPOTS, "What was the average on-time rate?")
    assert answer.answer is None
    assert "\u201cTotal\u201d row (94.5%)" in answer.error.message
    # Amounts average as before.
    [mean] = ask(DEPOTS, "What was the average number of deliveries?").values
    assert round(mean, 2) == 1108.33
