"""The scorer (tablelens/evaluation/scoring.py), one group of tests per rule of
shared/bench/README.md.

Gold answers are copied from the bench files (the question id is noted) or from the README.
"""

from __future__ import annotations

import json

import pytest

from tablelens.evaluation.scoring import match
from tests.conftest import BENCH

# ---------------------------------------------------------------------------------------------
# "The prediction and the gold are compared as sets of values."

WTQ_NU_34 = ["Jahaira Novgorodova", "Carmen Jenockova", "Mariesea Mnesiču",
             "Patricia Valiahmetova", "Anastasija Larkova"]


def test_set_order_is_ignored() -> None:
    assert match(list(reversed(WTQ_NU_34)), WTQ_NU_34)  # wtq-nu-34


def test_set_needs_every_gold_item() -> None:
    assert not match(WTQ_NU_34[:4], WTQ_NU_34)


def test_set_rejects_an_extra_item() -> None:
    assert not match([*WTQ_NU_34, "Natalia Varnakova"], WTQ_NU_34)


def test_set_repeated_items_collapse() -> None:
    assert match(["95%", "95%"], ["95%"])
    assert match(["2019", "2018", "2019"], ["2019", "2018"])


def test_set_multi_item_gold_is_not_alternatives() -> None:
    # tatqa-b67b0fd4c4ce82e751f38b17ba47c85c: both years are needed.
    assert not match("2019", ["2019", "2018"])


@pytest.mark.parametrize("prediction", [None, "", [], [None], "  "])
def test_no_prediction_is_wrong(prediction: object) -> None:
    assert not match(prediction, ["8"])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# "Text is compared after Unicode folding, lowercasing and removing punctuation."


def test_text_case_is_ignored() -> None:
    assert match("winning bidder", ["Winning Bidder"])  # sstqa-en-37


def test_text_unicode_is_folded() -> None:
    assert match("ＡＭＥＲ", ["AMER"])  # full-width letters (NFKC)
    assert match("STRASSE", ["Straße"])  # casefold
    assert match("Mariesea Mnesiču", ["Mariesea Mnesic\u030cu"])  # composed vs combining


def test_text_punctuation_is_removed() -> None:
    assert match("Richard S Hill", ["Richard S. Hill"])  # tatqa: a span answer
    assert match("Black Scholes Merton", ["Black-Scholes-Merton"])
    assert match("US", ["U.S."])
    assert match("Nasdaq's rule", ["Nasdaq’s rule"])
    assert match("1.74% - 1.94%", ["1.74%-1.94%"])  # tatqa: a range kept as text


def test_text_whitespace_is_collapsed() -> None:
    assert match("  Roast   Beef ", ["Roast Beef"])  # realhitbench


def test_text_differs() -> None:
    assert not match("Men", ["Women"])
    assert not match("Supplier 6", ["Supplier 8"])


def test_text_punctuation_between_digits_still_separates() -> None:
    # A score "3-2" is not the number 32, and a phone number keeps its parts.
    assert not match("32", ["3-2"])
    assert not match("053186361175", ["0531-86361175"])
    assert match("0531-86361175", ["0531-86361175"])  # sstqa


# ---------------------------------------------------------------------------------------------
# "Numbers are compared numerically. The scorer understands $, %, thousands separators,
# accounting negatives and scale words."


def test_number_thousands_separators() -> None:
    assert match("28061313", ["28,061,313"])  # wtq gold with its canon "28061313"
    assert match("13424236", ["13,424,236"])  # tatqa


def test_number_dollar_sign() -> None:
    assert match("212.1", ["$212.1"])
    assert match("$212.1", ["212.1"])
    assert match("USD 5", ["$5"])


def test_number_percent_sign() -> None:
    assert match("96.53", ["96.53%"])  # sstqa
    assert match("39%", ["39"])


def test_number_accounting_negative() -> None:
    assert match("-52982", ["$(52,982)"])  # tatqa
    assert match("(415,772)", ["-415772"])
    assert not match("52982", ["$(52,982)"])


def test_number_sign_matters() -> None:
    # Removing punctuation from text would turn "-49955" into "49955": numbers never go there.
    assert not match("49955", ["-49955"])
    assert match("−49955", ["-49955"])  # a typeset minus sign


@pytest.mark.parametrize(("prediction", "gold"), [
    ("12.79 million", "12,790,000 people"),  # sstqa-en-80
    ("12,790 thousand", "12,790,000"),
    ("45,830,330,000", "45,830.33 million people"),
    ("49421.37 billion", "49421.37 billion yuan"),
    ("5k", "5000"),
    ("2.5m", "2,500,000"),  # a bare "m" is read as million as well as metres
    ("$3.5m", "3500000"),
    ("2bn", "2,000,000,000"),
    ("1.2万", "12000"),
    ("3亿", "300,000,000"),
    ("6730000000", "6730 million yuan"),
])
def test_number_scale_words(prediction: str, gold: str) -> None:
    assert match(prediction, [gold])


def test_number_scale_word_changes_the_value() -> None:
    assert not match("12.79", ["12,790,000 people"])
    assert not match("5 billion", ["5 million"])


def test_number_prediction_may_be_a_number() -> None:
    assert match(3140000, ["3140000"])  # tatqa arithmetic
    assert match(0.93, ["0.93"])
    assert match([2019, 2018], ["2019", "2018"])


def test_number_unit_words_are_not_compared() -> None:
    assert match("17", ["17 years"])
    assert match("6", ["6 kinds"])  # sstqa
    assert match("119 episodes", ["119"])


# "A gold value with d decimals accepts any prediction that rounds to it."


@pytest.mark.parametrize(("prediction", "gold"), [
    ("43.6", "43.60"),  # realhitbench-49: trailing zeros of the gold
    ("43.604", "43.60"),
    ("43.5951", "43.60"),
    (14.2, "14.20"),  # realhitbench-167
    (1.0, "1.00"),
    ("0.69999999", "0.70"),  # realhitbench-50: float noise
    ("0.26", "0.3"),
    ("-5.144", "-5.14"),
])
def test_decimal_gold_accepts_what_rounds_to_it(prediction: object, gold: str) -> None:
    assert match(prediction, [gold])  # type: ignore[arg-type]


@pytest.mark.parametrize(("prediction", "gold"), [
    ("43.61", "43.60"),
    ("43.5949", "43.60"),
    ("44", "43.60"),
    ("0.36", "0.3"),
])
def test_decimal_gold_rejects_what_rounds_elsewhere(prediction: str, gold: str) -> None:
    assert not match(prediction, [gold])


# "An integer gold value must be matched exactly."


def test_integer_gold_matches_exactly() -> None:
    assert match("8", ["8"])  # sstqa-en-28
    assert match("8.0", ["8"])
    assert match(3139999.9999999995, ["3140000"])  # float noise of a computation


def test_integer_gold_rejects_a_rounded_prediction() -> None:
    assert not match("8.4", ["8"])
    assert not match("7.6", ["8"])
    assert not match("3140001", ["3140000"])


# ---------------------------------------------------------------------------------------------
# "Dates are compared as (year, month, day)."


def test_dates_in_different_spellings() -> None:
    assert match("March 5, 2021", ["2021-03-05"])
    assert match("2021-03-05", ["March 5, 2021"])
    assert match("2016-09-30", ["Sep 30, 2016"])  # realhitbench
    assert match("September 7, 2017", ["2017-9-7"])  # sstqa


def test_dates_without_a_year() -> None:
    assert match("October 17", ["xxxx-10-17"])  # the README's canon example
    assert match("17 Oct", ["October 17"])
    assert match("Feb", ["February"])  # realhitbench: a month alone


def test_dates_differ() -> None:
    assert not match("2021-03-06", ["2021-03-05"])
    assert not match("2021-10-17", ["xxxx-10-17"])  # a year the gold does not state
    assert not match("October 18", ["xxxx-10-17"])


# ---------------------------------------------------------------------------------------------
# "For tatqa, the gold number times its scale is also accepted, and a fraction is accepted for
# percent."


@pytest.mark.parametrize("prediction", ["12.5", "12.5 million", "12,500,000", 12500000,
                                        "$12.5m"])
def test_tatqa_million_scale(prediction: object) -> None:
    # The README: "a million question with gold 12.5 accepts 12.5, 12.5 million or 12,500,000".
    assert match(prediction, ["12.5"], scale="million")  # type: ignore[arg-type]


def test_tatqa_thousand_scale_with_accounting_negative() -> None:
    assert match("-52,982,000", ["$(52,982)"], scale="thousand")  # tatqa span
    assert match("(52,982)", ["$(52,982)"], scale="thousand")


def test_tatqa_scale_keeps_the_decimals_rule() -> None:
    assert match("0.26 million", ["0.3"], scale="million")
    assert match(260000, ["0.3"], scale="million")
    assert not match(360000, ["0.3"], scale="million")
    assert not match("525001", ["525"], scale="thousand")


def test_tatqa_percent_accepts_a_fraction() -> None:
    assert match(0.125, ["12.5"], scale="percent")  # the brief's example
    assert match("12.5%", ["12.5"], scale="percent")
    assert match("-0.0514", ["-5.14"], scale="percent")  # tatqa arithmetic
    assert match("0.13", ["13"], scale="percent")  # tatqa span, integer gold
    assert not match("0.126", ["12.5"], scale="percent")


def test_scale_applies_only_when_given() -> None:
    assert not match(0.125, ["12.5"])
    assert not match("12,500,000", ["12.5"])


def test_unknown_scale_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown scale"):
        match("1", ["1"], scale="dozen")


# ---------------------------------------------------------------------------------------------
# "If one side is a single string like "1955, 62170" and the other side is a list, the string
# is split into items before comparing."


def test_split_the_prediction_string() -> None:
    assert match("1955, 62170", ["1955", "62170"])
    assert match("2019; 2018; 2017", ["2019", "2018", "2017"])  # tatqa multi-span
    assert match("AMER | APAC | EMEA", ["AMER", "APAC", "EMEA"])
    assert not match("1955, 62171", ["1955", "62170"])


def test_split_the_gold_string() -> None:
    assert match(["Mountain", "330736"], ["Mountain, 330736"])  # realhitbench
    assert match(["170000", "170000"], ["170000, 170000"])  # sstqa


def test_split_keeps_thousands_separators() -> None:
    assert match("13,424,236, 15,011,605", ["13,424,236", "15,011,605"])  # tatqa


def test_split_at_and() -> None:
    assert match("Kentucky and Tennessee", ["Kentucky", "Tennessee"])
    # Commas come first, so an item with "and" inside stays whole (tatqa multi-span).
    assert match("Contract manufacturer and supplier prepayments, Prepaid taxes",
                 ["Contract manufacturer and supplier prepayments", "Prepaid taxes"])


def test_split_ranking_strings_compare_as_sets() -> None:
    # The README: ranking answers such as "1 mg/L, 5 mg/L, 0 mg/L" are compared as sets.
    assert match("5 mg/L, 0 mg/L, 1 mg/L", ["1 mg/L, 5 mg/L, 0 mg/L"])
    assert not match("5 mg/L, 1 mg/L", ["1 mg/L, 5 mg/L, 0 mg/L"])


# ---------------------------------------------------------------------------------------------
# wtq: `answers_canon` is also accepted.


def test_wtq_canon_spelling_is_accepted() -> None:
    assert match("0.9", [".900 silver"], canon=["0.9"])
    assert match("xxxx-07-29", ["July 29"], canon=["xxxx-07-29"])
    assert match("July 29", ["July 29"], canon=["xxxx-07-29"])
    assert not match("0.8", [".900 silver"], canon=["0.9"])


def test_wtq_canon_alone_can_make_the_match() -> None:
    # Hand-made: the bench's canonical forms are also reachable by the number and date rules.
    assert not match("Beatles", ["The Beatles (band)"])
    assert match("Beatles", ["The Beatles (band)"], canon=["beatles"])


def test_wtq_canon_per_item() -> None:
    gold, canon = ["14 weeks", "July 29"], ["14", "xxxx-07-29"]
    assert match(["14", "July 29"], gold, canon=canon)
    assert not match(["14", "July 30"], gold, canon=canon)


def test_wtq_canon_of_another_length_is_a_whole_alternative() -> None:
    assert match(["a", "b"], ["a, b"], canon=["a", "b", "c"])
    assert match(["a", "b", "c"], ["x"], canon=["a", "b", "c"])


# ---------------------------------------------------------------------------------------------
# `--lenient`: a number with a subset of the gold's unit words; a leading article is dropped.


def test_lenient_number_without_unit_words() -> None:
    gold = ["587.81 million yuan"]  # the README's example
    assert not match("587.81", gold)
    assert match("587.81", gold, lenient=True)
    assert match("587.81 yuan", gold, lenient=True)
    assert match("587.81 million", gold, lenient=True)
    assert match("12,790,000", ["12,790,000 people"], lenient=True)  # sstqa-en-80


def test_lenient_rejects_unit_words_the_gold_lacks() -> None:
    gold = ["587.81 million yuan"]
    assert not match("587.81 billion", gold, lenient=True)
    assert not match("587.81 dollars", gold, lenient=True)
    assert not match("587.81%", gold, lenient=True)
    assert not match("587.82", gold, lenient=True)


def test_lenient_drops_a_leading_article() -> None:
    assert not match("the winning bidder", ["winning bidder"])
    assert match("the winning bidder", ["winning bidder"], lenient=True)  # sstqa-en-33
    assert match("A Roast Beef", ["Roast Beef"], lenient=True)
    assert match("an apple", ["Apple"], lenient=True)
    assert not match("theatre", ["atre"], lenient=True)  # only a whole word is an article


def test_lenient_accepts_everything_strict_accepts() -> None:
    assert match("12.5 million", ["12.5"], scale="million", lenient=True)
    assert match("October 17", ["xxxx-10-17"], lenient=True)


# ---------------------------------------------------------------------------------------------
# Every gold answer of the bench matches itself (and WTQ's canonical form matches the gold).


def _bench_questions() -> list[dict]:
    if not BENCH.is_dir():
        return []
    return [json.loads(line) for path in sorted(BENCH.glob("*/questions.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.skipif(not BENCH.is_dir(), reason=f"no benchmark at {BENCH}")
def test_bench_gold_matches_itself() -> None:
    wrong = [q["id"] for q in _bench_questions()
             if not match(q["answers"], q["answers"], canon=q.get("answers_canon"),
                          scale=q.get("scale", ""))]
    assert wrong == []


@pytest.mark.skipif(not BENCH.is_dir(), reason=f"no benchmark at {BENCH}")
def test_bench_wtq_canon_matches_gold() -> None:
    wrong = [q["id"] for q in _bench_questions() if "answers_canon" in q
             and not match(q["answers_canon"], q["answers"], canon=q["answers_canon"])]
    assert wrong == []
