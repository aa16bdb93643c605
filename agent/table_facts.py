"""The facts of a whole table the rules consult on every question: which rows restate others
(totals, repeated headers), which columns hold only years or only different whole numbers,
which header reads like data, which rows are labelled as totals.

Each is defined once, by a predicate over a row or a column's values (`restates_others`,
`find_swallowed_header` ...). A table whose cells can be scanned in SQL (`agent/cell_scan.py`)
finds its facts there: SQLite narrows the rows to those that could meet a predicate (the
distinct texts of a column are tested in Python, and the rows holding the ones that pass are
found by SQL), and the predicate then decides on those rows alone. Otherwise, and in the test
that holds both to the same facts, they are found from the frame's values, row by row.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from pydantic import BaseModel, ConfigDict

from agent import stop
from agent.cell_scan import CellScan, at_most, scan_of
from agent.frame import Attr, Frame, Value
from agent.table_profile import table_fact
from ingest.values import parse_value

TOTAL_LABEL = re.compile(r"^\W*(?:(?:grand|sub-?)\s*)?totals?\b|"
                         r"\b(?:(?:sub-?)?totals?|aggregates?)\W*$|"
                         r"^\W*(?:all(?![-\u2010-\u2015]through\b)(?!\s+(?:saints?|hallows|souls)\b)"
                         r"|overall|sum)\b|\(\s*(?:all|total)\b[^()]*\)\W*$|"
                         r"\bsub-?totals?\b", re.IGNORECASE)
"""A total row's label: it starts or ends with "total" ("Total expenses", "Revenue, total",
"Grand total", "Engineering Subtotal") or ends with "aggregates" ("Season aggregates"; not
"Aggregate demand", a measure), starts with "all"/"overall" ("All industries"), ends in a
bracket that says so ("England (all regions)"), or says "subtotal" anywhere ("Team subtotal -
North"); a name such as "Grand Canyon", "Hall of Fame", "All-through Academy" or "All Saints
Catholic High School" is not one ("All-time record" is)."""
_NOTE_MARK = r"(?:\s*[\(\[][a-z0-9*]{1,2}[\)\]])*"
"""Footnote marks after a label ("EU-27 (d)", "World [a]"), which do not change what it is."""
AGGREGATE_LABEL = re.compile(
    r"^\W*(?:world|worldwide|eu[\s_-]?\d{0,2}(?:[\s_-]?\d{4})?|european\s+union\b.*|"
    r"euro\s*area\b.*|eurozone|oecd\b.*)" + _NOTE_MARK + r"\W*$", re.IGNORECASE)
"""The aggregates of statistics offices beside the countries they add up: "World", "EU-27",
"EU27_2020", "European Union (27 countries)", "Euro area", "OECD average". A row's own label
only: a band "European Union" above Germany and France groups members, it adds nothing up."""
_WHOLE_STATISTIC = (
    r"^\W*(?:class|group|team|school|grade|company|department|national|state|regional|"
    r"sample|cohort|industry|sector|country|county|city|district|league|(?:local\s+)?authority|"
    r"area|region|borough|province|trust|board|council|world|global|eu|oecd|network|"
    r"system|fleet|portfolio|market|route|operator)\s+"
    r"(?:average|mean|median)" + _NOTE_MARK + r"\W*$")
"""The statistic of a named whole: "Class average", "Local authority average", "World
average" (not "Batting average", a measure of its own)."""
_REFERENCE = (r"^\W*(?:(?:(?:regulatory|minimum|capital|statutory)\s+)?(?:requirements?|"
              r"thresholds?|benchmarks?|limits?)|(?:regulatory|statutory|legal)\s+"
              r"(?:minimum|maximum))" + _NOTE_MARK + r"\W*$")
"""A reference the rows are held against, not one of them ("Requirement", "Threshold",
"Regulatory minimum")."""
_LEFT_OUT_OWN = re.compile("|".join([AGGREGATE_LABEL.pattern, _WHOLE_STATISTIC, _REFERENCE]),
                           re.IGNORECASE)
"""Besides totals, the own labels of rows no count, total or average of the rows takes in,
whatever their figures: statistics offices' aggregates ("EU-27 (d)"), a whole's average
("World average"), a reference ("Requirement")."""
SUMMARY_LABEL = re.compile(
    TOTAL_LABEL.pattern + r"|^\W*(?:turnout|majority)\W*$"
    # A statistic of the rows: "Annual average", "Median", "Maximum", "Unweighted mean of
    # listed countries" (not "Average hourly earnings", a series of its own).
    r"|^\W*(?:(?:annual|yearly|monthly|weighted|unweighted|simple|arithmetic|overall)\s+)?"
    r"(?:average|mean|median|maximum|minimum|max|min|std\.?(?:\s*dev(?:iation)?\.?)?|sd|"
    r"standard deviation|range)"
    r"(?:\s+of\s+(?:the\s+)?(?:listed|all|above|these)\b.*)?\W*$"
    r"|" + _WHOLE_STATISTIC + r"|" + _REFERENCE +
    # A figure weighted over the rows ("Company (weighted)", "Average bill (weighted)").
    r"|\((?:weighted|wtd\.?)(?:\s+(?:average|mean|total))?\)\W*$" +
    # A change of the rows above ("Percent change, December over December").
    r"|^\W*(?:percent(?:age)?|%)\s+change\b"
    # A part of the row above it ("Of which: durable goods"), or the sample size of a survey
    # ("Number of respondents (n)", "Base", "n").
    r"|^\W*of\s+which\b|^\W*(?:number\s+of\s+respondents|sample\s+size|unweighted\s+base|"
    r"base|n)\b(?:\W*$|.*\(n\)\W*$)|\(n\)\W*$"
    r"|" + AGGREGATE_LABEL.pattern,
    re.IGNORECASE)
"""Row labels of rows that summarise or restate the others (never data rows of an
aggregate): totals, statistics of the rows, changes, parts of the row above, sample sizes,
the aggregates of groups of countries."""
_SUMMARY_START = re.compile(r"(?:grand |sub-?)?totals?\b|turnout\b|overall\b", re.IGNORECASE)
_TOTAL_END = re.compile(r"\S\s+(?:grand |sub-?)?totals?\W*$", re.IGNORECASE)
"""A text cell that ends in "Total" ("142 Total", "Product A total"): the subtotal row of the
group named before it, in a table whose row labels are codes rather than a label column."""
_STATISTIC_END = re.compile(r"\S(?<!above)(?<!below)(?<!than)\s+(?:average|mean|median)\W*$",
                            re.IGNORECASE)
"""A text cell that ends in a statistic of a group ("Season 1 average", "Group mean"), not
a grade ("Above average")."""
_SUMMARY_WORDS = ("total", "turnout", "overall", "average", "mean", "median")
"""A text either pattern above matches holds one of these words in some case. SQL's LIKE
folds ASCII case only; Python's IGNORECASE folds no other letter to one of these letters."""

_TYPED_KINDS = frozenset(("date", "number", "range", "duration", "percent", "currency", "time"))
"""Kinds of cell that a header label is rarely written as, unless it is a year."""


class TableProfile(BaseModel):
    """What the rules need to know of a whole table, computed once (`agent/table_profile.py`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary_rows: frozenset[int]
    """Rows that restate others: totals, subtotals, summaries, repeated header rows."""
    swallowed_header: str | None
    """A header label that reads like its column's data (`find_swallowed_header`)."""
    year_columns: frozenset[str]
    """Columns whose numbers are all years (two or more)."""
    distinct_whole_columns: frozenset[str]
    """Columns whose numbers are all whole and all different (four or more)."""
    row_depth: int
    """The most labels a row's path has: below 2, no row is under another."""
    section_heads: frozenset[int] = frozenset()
    """Summary rows that add up the rows right below them (`_leading_subtotals`): a section's
    sum, which a question naming it ("which America ...") names as a section, not as the
    whole table's total."""


def profile(frame: Frame) -> TableProfile:
    """The table's profile, computed once per table and rules (`agent/table_profile.py`)."""
    return table_fact(frame, "rules_profile", compute_profile,
                      lambda p: p.model_dump(mode="json"), TableProfile.model_validate)


def summary_row(frame: Frame, row: int) -> bool:
    """A total, subtotal or repeated-header row: it restates other rows (computed once per
    table)."""
    return row in profile(frame).summary_rows


def total_labelled(frame: Frame) -> frozenset[int]:
    """The rows whose path says total, subtotal or summary, or whose own label names an
    aggregate, a whole's average or a reference ("EU-27", "World average", "Requirement";
    `_LEFT_OUT_OWN`) (found once per table and stored:
    a tall table's aggregate would search its 20,000 labels on every question, and each new
    process on its first)."""
    return table_fact(frame, "total_labelled", _find_total_labelled, sorted, frozenset)


RECONCILING_LABEL = re.compile(r"\b(?:eliminations?|reconcil\w*|unallocated|consolidation "
                               r"adjustments?|central (?:costs?|items?)|corporate (?:costs?|"
                               r"items?|and other)|other adjustments?)\b", re.IGNORECASE)
"""The rows of a segment note that bring the segments to the group's total ("Inter-segment
eliminations", "Central costs", "Unallocated"): no segment of their own."""


def reconciling_rows(frame: Frame) -> frozenset[int]:
    """The rows a level of whose path is `RECONCILING_LABEL` (found once per table and
    stored, as `total_labelled`: a ranking of a tall table would search every label)."""
    return table_fact(frame, "reconciling_rows", _find_reconciling_rows, sorted, frozenset)


def _find_reconciling_rows(frame: Frame) -> frozenset[int]:
    return frozenset(row for path, rows in stop.checked(list(frame.side.path_groups().items()))
                     if any(RECONCILING_LABEL.search(level) for level in path) for row in rows)


def distinct_row_paths(frame: Frame) -> bool:
    """Whether no two data rows share a row path (found once per table and stored): then no
    subset of the rows repeats a name, and a ranking by row label need not read the labels
    of its 20,000 rows to make sure."""
    return table_fact(frame, "distinct_row_paths", _find_distinct_row_paths, bool, bool)


def _find_distinct_row_paths(frame: Frame) -> bool:
    return all(len(rows) == 1 for rows in stop.checked(list(frame.side.path_groups().values())))


def _find_total_labelled(frame: Frame) -> frozenset[int]:
    # A total at any level of the path; an aggregate, a whole's average or a reference by the
    # row's own label only (a band "European Union" over Germany groups its members).
    groups = frame.side.path_groups()
    own = {row for path, rows in groups.items()
           if path and _LEFT_OUT_OWN.search(path[-1]) for row in rows}
    # "Year" or "Annual" below January to December is the year of them, not a thirteenth
    # month.
    months = sum(1 for path in groups if path and MONTH_LABEL.fullmatch(path[-1].strip()))
    if months >= 6:
        own |= {row for path, rows in groups.items()
                if path and _YEAR_OF_MONTHS.fullmatch(path[-1].strip()) for row in rows}
    return frozenset(_rows_labelled(frame, TOTAL_LABEL) | own)


MONTH_LABEL = re.compile(
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:[\s'-]*\d{2,4})?",
    re.IGNORECASE)
"""A month's label ("Jan", "September", "Mar 2024")."""
_YEAR_OF_MONTHS = re.compile(r"\W*(?:year|annual|annually|full[\s-]year|whole\s+year|ytd|"
                             r"year[\s-]to[\s-]date|12[\s-]months?)(?:\s+total)?\W*",
                             re.IGNORECASE)
"""The label of a row that sums or sums up a table's months ("Year", "**Annual**")."""


def _rows_labelled(frame: Frame, pattern: re.Pattern[str]) -> set[int]:
    """The rows with a label of their path that `pattern` finds (for SUMMARY_LABEL, also a
    whole under its parent, `summary_path`); each distinct path tested once (a tall table
    repeats its paths, or has one label per row)."""
    found: set[int] = set()
    for path, rows in stop.checked(frame.side.path_groups().items()):
        if summary_path(path) if pattern is SUMMARY_LABEL else any(
                pattern.search(t) for t in path):
            found.update(rows)
    if pattern is SUMMARY_LABEL:
        found |= whole_members(frame)
    return found


WHOLE_MEMBER = re.compile(r"\W*(?:national|nationwide|whole country)\W*", re.IGNORECASE)
"""The label of a row that is its parent as a whole: "Germany > National" before Germany's
regions. (At the top of a path "National" is a kind of its own, beside "International";
after other members it is one of them, a party among a coalition's.)"""


def summary_path(path: tuple[str, ...]) -> bool:
    """Whether a row path says its row summarises others: a summary label of its own, or
    one at a level above (not an aggregate's name there: a band "European Union" groups its
    members, it adds nothing up; see AGGREGATE_LABEL)."""
    if not path:
        return False
    return SUMMARY_LABEL.search(path[-1]) is not None or any(
        SUMMARY_LABEL.search(t) and not AGGREGATE_LABEL.search(t) for t in path[:-1])


def whole_members(frame: Frame) -> set[int]:
    """The rows labelled as their parent's whole (WHOLE_MEMBER) that come first under it,
    found once per frame from its distinct row paths."""
    if "whole_members" not in frame.memo:
        first: dict[tuple[str, ...], int] = {}
        for path, rows in frame.side.path_groups().items():
            if len(path) > 1 and rows:
                parent = path[:-1]
                first[parent] = min(first.get(parent, min(rows)), min(rows))
        frame.memo["whole_members"] = {
            r for path, rows in frame.side.path_groups().items()
            if len(path) > 1 and rows and WHOLE_MEMBER.fullmatch(path[-1])
            and min(rows) == first[path[:-1]] for r in rows}
    return frame.memo["whole_members"]


def compute_profile(frame: Frame, *, by_sql: bool = True) -> TableProfile:
    """Find the profile: by SQL over the table's cells when it can be scanned there (and
    `by_sql`), else from the frame's values, row by row."""
    found = scan_of(frame) if by_sql else None
    if found is None:
        rows = set()
        for r in frame.rows:
            stop.check()  # every cell of the table is read here, row by row
            if restates_others(frame, r, _frame_cells(frame, r)):
                rows.add(r)
        summary = frozenset(rows)
        years, distinct = _number_columns(frame)
    else:
        summary = _scanned_summary_rows(frame, found)
        years, distinct = _scanned_number_columns(frame, found)
    paths = frame.side.path_groups() if found is not None else frame.row_paths.values()
    row_depth = max(map(len, paths), default=0)
    heads: frozenset[int] = frozenset()
    # "Hardware > of which online" is a part of its row, no group of rows: a list with such
    # parts is as flat as without them, and its sums ("Gross revenue", no total word) are
    # found the same way.
    flat = max((len(p) for p in paths if not _PART_OF.match(p[-1] if p else "")), default=0)
    if flat <= 1:
        summary = summary | _below_the_total(frame) | _sum_of_the_others(frame, summary, found)
        summary = summary | _running_subtotals(frame, summary, found)
        heads = _leading_subtotals(frame, summary, found)
        summary = summary | heads
        summary = summary | _total_carried_on(frame)
    elif frame.rows:
        # ("Group net sales" under its areas' members and their "Total ..." rows: the last
        # row, adding up all the others, its label no total word. Not a statement's first
        # line, "Revenue", which its parts and profits may add up to as well.)
        last = frame.rows[-1]
        summary = summary | (_sum_of_the_others(frame, summary | total_labelled(frame), found)
                             & {last})
    summary = summary | _stated_sums(frame, summary)
    return TableProfile(summary_rows=summary, section_heads=heads,
                        swallowed_header=find_swallowed_header(frame, summary, found),
                        year_columns=years, distinct_whole_columns=distinct,
                        row_depth=row_depth)


_PART_OF = re.compile(r"^\W*(?:of\s+which|thereof|incl(?:uding|\.)?)\b", re.IGNORECASE)
"""A row label naming a part of the row above ("of which online", "thereof: exports")."""

BELOW_TOTAL = 3
"""The most rows under a flat table's closing total that are read as notes on it."""


def _below_the_total(frame: Frame) -> frozenset[int]:
    """The few rows under a flat list's closing total row ("Team totals" then "Opponents",
    "Total" then "Registered voters"): a list ends at its total, and what follows compares
    or describes it rather than adds one more member. A total row at the top, or one with
    many rows under it, closes nothing."""
    rows = list(frame.rows)
    labelled = total_labelled(frame)
    totals = [i for i, r in enumerate(rows) if r in labelled]
    if not totals or totals[-1] < 2:
        return frozenset()
    after = rows[totals[-1] + 1:]
    if not after or len(after) > BELOW_TOTAL:
        return frozenset()
    return frozenset(after) if _rival_the_total(frame, rows[totals[-1]], after) else frozenset()


_RATE_LEAF = re.compile(r"\([^()]*/[^()]*\)|\b(?:per|rate|ratio|average|avg|mean|median)\b",
                        re.IGNORECASE)
"""A column of rates by its own header ("Yield (t/ha)", "Average price"): its total row
holds a rate of the whole, not a sum."""


SUM_CHECK_ROWS = 2000
"""The most rows of a table whose rows are checked for one that adds up the others."""


def _total_carried_on(frame: Frame) -> frozenset[int]:
    """The rows of a flat list that add a total row above them and the rows between
    ("Current receipts" below "Total tax receipts", "Interest and dividends" and "Other
    receipts"), in every column of amounts, though no word says so: a grand total."""
    rows = list(frame.rows)
    labelled = total_labelled(frame)
    starts = [i for i, r in enumerate(rows) if r in labelled]
    if not starts or len(rows) > SUM_CHECK_ROWS:
        return frozenset()
    columns = []
    for attr in frame.data_attrs:
        values = frame.values_of(attr.key, rows) if attr.measurable else []
        if "%" in attr.label or not values or _RATE_LEAF.search(attr.path[-1] if attr.path
                                                               else ""):
            continue
        columns.append([v.number if v is not None and v.measurable and v.kind != "percent"
                        else None for v in values])
    if len(columns) < 2:
        return frozenset()
    found: set[int] = set()
    for start in starts:
        for j in range(start + 2, min(len(rows), start + 1 + BELOW_TOTAL * 2)):
            adds = True
            for numbers in columns:
                run = numbers[start:j]
                if numbers[j] is None or any(n is None for n in run) \
                        or not adds_up(run, numbers[j]):
                    adds = False
                    break
            if adds:
                found.add(rows[j])
    return frozenset(found)


def adds_up(parts: Sequence[float], total: float) -> bool:
    """Whether figures add up to a total, to the rounding of figures shown to a few
    decimals (each part off by up to half a cent, a total by 0.2%)."""
    return sum_is(total, sum(parts), len(parts))


def sum_is(total: float, summed: float, parts: int) -> bool:
    """`adds_up` of a sum already kept (of `parts` figures), as a running block keeps it."""
    return abs(summed - total) <= max(0.002 * abs(total), 0.011 * parts)


_SUM_LABEL = re.compile(r"^\W*(?:gross|combined|aggregate)\b", re.IGNORECASE)
"""A label that may state the sum of the rows above it ("Gross deferred tax assets")."""


def _stated_sums(frame: Frame, known: frozenset[int]) -> frozenset[int]:
    """The rows labelled as a sum (`_SUM_LABEL`) whose every figure is the sum of two or more
    rows right above them, in their section, since its start or the last summary row: a
    subtotal ("Gross deferred tax assets" under the assets it adds up), never one of them.
    ("Gross profit", revenue less its cost, adds up nothing above it.)"""
    candidates = _rows_labelled(frame, _SUM_LABEL) - known
    if not candidates:
        return frozenset()
    paths = frame.row_paths
    rows = frame.rows
    order = {r: i for i, r in enumerate(rows)}
    found = set()
    for row in candidates:
        section = paths.get(row, ())[:-1]
        above: list[int] = []
        for i in range(order[row] - 1, -1, -1):
            r = rows[i]
            if r in known or paths.get(r, ())[:-1] != section or len(above) > SUM_CHECK_ROWS:
                break
            above.append(r)
        if not 2 <= len(above) <= SUM_CHECK_ROWS:
            continue  # (a tall list's figures are not read for one label's sake)
        checked = 0
        for attr in frame.data_attrs:
            own = frame.value(row, attr.key)
            if not attr.measurable or own is None or own.number is None:
                continue
            parts = [v.number for r in above if (v := frame.value(r, attr.key)) is not None
                     and v.number is not None]
            if len(parts) < 2 or not adds_up(parts, own.number):
                break
            checked += 1
        else:
            if checked:
                found.add(row)
    return frozenset(found)


def _column_numbers(frame: Frame, rows: list[int], scan: CellScan | None
                    ) -> Iterator[tuple[Attr, dict[int, float], list[Value | None]]]:
    """Each measurable data column with its numbers on `rows` and its values (whose kinds and
    units tell a share or a rate). A column the frame has not read is read in SQL, as the
    profile's other facts are: these checks read no column into the frame."""
    kept = set(rows)
    for attr in frame.data_attrs:
        if not attr.measurable:
            continue
        if scan is not None and attr.col is not None and attr.key not in frame.columns:
            numbers = {r: n for r, n in scan.numbers(attr.col).items()
                       if r in kept and n is not None}
            values: list[Value | None] = [v for _, v in scan.forms(attr.col)]
        else:
            values = frame.values_of(attr.key, rows)
            numbers = {r: v.number for r, v in zip(rows, values, strict=True)
                       if v is not None and v.measurable and v.number is not None}
        yield attr, numbers, values


EXACT_TOTAL_LEAST = 1_000
"""The least figure a last row adds the others up to, to the unit, to be their total when
no other column of amounts confirms it."""


def _sum_of_the_others(frame: Frame, known: frozenset[int], scan: CellScan | None
                       ) -> frozenset[int]:
    """The row of a flat list that adds up all the others in two or more number columns
    (or, as its last row, exactly in the one column of amounts beside rates), though no word
    says so ("Group" under its segments, "EU-27" under its members): a total of the list,
    never a member of it."""
    rows = [r for r in frame.rows if r not in known]
    if not 4 <= len(rows) <= SUM_CHECK_ROWS:
        return frozenset()
    hits: dict[int, int] = {}
    nonzero: dict[int, int] = {}
    exact: set[int] = set()
    columns = rates = 0
    for attr, numbers, values in _column_numbers(frame, rows, scan):
        if len(numbers) < 4 or len(numbers) < 0.8 * len(rows):
            continue
        if "%" in attr.label or _RATE_LEAF.search(attr.path[-1] if attr.path else "") \
                or any(v is not None and (v.kind == "percent" or v.unit == "%") for v in values):
            rates += 1
            continue  # a share or a rate: a total row's figure is no sum of the others'
        columns += 1
        whole = sum(numbers.values())
        # The total is half of the column's sum (itself plus the others), to the rounding of
        # figures shown to a few decimals.
        for r, n in numbers.items():
            if abs(2 * n - whole) <= max(0.002 * abs(n), 0.011 * len(numbers)):
                # (A total of 0 where the others cancel out, "Net internal migration" of
                # England, is their sum too.)
                hits[r] = hits.get(r, 0) + 1
                nonzero[r] = nonzero.get(r, 0) + (n != 0)
                if float(n).is_integer() and 2 * n == whole and abs(n) >= EXACT_TOTAL_LEAST:
                    exact.add(r)
    # Every column of amounts, two of them not zero: a member that is half of two columns by
    # chance ("Kenya" with 5 of 10 golds and 2 of 4 silvers) misses the others.
    found = [r for r, k in hits.items() if k == columns and nonzero[r] >= 2]
    if columns == 1 and rates:
        # One column of amounts beside rates ("England" under its regions: the children in
        # cohort, then coverage %): the last row, adding up the others to the unit, is their
        # total. A member so by chance would need all of that, and a large figure (Ann's 6
        # goals are Bo's 2, Cy's 1 and Di's 3 by chance).
        found = [r for r in exact if r == rows[-1]]
    return frozenset(found) if len(found) == 1 else frozenset()


def _amount_columns(frame: Frame, rows: list[int], scan: CellScan | None
                    ) -> list[dict[int, float]]:
    """The numbers by row of the columns of amounts with a number on most of these rows (four
    in five): where a row may add up others. A share or a rate adds up nothing."""
    return [numbers for attr, numbers, values in _column_numbers(frame, rows, scan)
            if "%" not in attr.label
            and not any(v is not None and (v.kind == "percent" or v.unit == "%") for v in values)
            and len(numbers) >= 0.8 * len(rows)]


def _running_subtotals(frame: Frame, known: frozenset[int], scan: CellScan | None
                       ) -> frozenset[int]:
    """The rows of a short flat list that add up the rows right above them, since the list's
    start or the last such row (which they may add to), in every column of amounts (two or
    more), no word saying so: a statement's "Gross revenue" under its products and "Net
    revenue" under it and "Less: returns". The list must close with such a row."""
    rows = [r for r in frame.rows if r not in known]
    if not 4 <= len(rows) <= SUM_CHECK_ROWS:
        # (Three rows, one the sum of the two others, may be chance: `_sum_of_the_others`
        # leaves them to the ranking's own check too.)
        return frozenset()
    columns = _amount_columns(frame, rows, scan)
    if len(columns) < 2:
        return frozenset()
    found: set[int] = set()
    # The block's sum in each column, kept as the rows go (one pass, however long the list);
    # a column with a member's cell missing cannot say the block adds up.
    sums = [0.0] * len(columns)
    whole = [True] * len(columns)
    members = 0
    for r in rows:
        # Three members at least, or the last subtotal and one more ("Net" = "Gross" less
        # returns): a row that is the sum of the two rows above is chance in a sequence
        # (1, 2, 3; 10, 20, 30).
        if members >= (2 if found else 3) and all(
                whole[i] and r in c and c[r] != 0
                and sum_is(c[r], sums[i], members)
                for i, c in enumerate(columns)):
            found.add(r)
            # The next subtotal may add to this one ("Net" = "Gross" - returns).
            sums = [c[r] for c in columns]
            whole = [True] * len(columns)
            members = 1
            continue
        for i, c in enumerate(columns):
            if r in c:
                sums[i] += c[r]
            else:
                whole[i] = False
        members += 1
    # A statement closes with its last sum: a row adding up those above it in the middle of
    # a long list, the list going on after it, is a sequence's chance (0, 7, 14, 21).
    return frozenset(found) if rows[-1] in found else frozenset()


def _leading_subtotals(frame: Frame, known: frozenset[int], scan: CellScan | None
                       ) -> frozenset[int]:
    """The rows of a flat list that add up the rows right below them, in every column of
    amounts, no word saying so: a classification's section above its members ("B-E
    Production industries" over B, C, D and E; "G-Q Services" over G to Q), among sections
    with no members of their own. A block's members are the rows up to the first where the
    sums match, and none of them is read as a subtotal in turn. Three columns and two
    members, or two columns and three members, at least: fewer may add up by chance."""
    rows = [r for r in frame.rows if r not in known]
    if not 3 <= len(rows) <= SUM_CHECK_ROWS:
        return frozenset()
    columns = _amount_columns(frame, rows, scan)
    if len(columns) < 2:
        return frozenset()
    found: set[int] = set()
    i = 0
    while i < len(rows):
        head = rows[i]
        sums = [0.0] * len(columns)
        closed = None
        for j in range(i + 1, len(rows)):
            r = rows[j]
            if not all(r in c for c in columns):
                break
            sums = [t + c[r] for t, c in zip(sums, columns, strict=True)]
            members = j - i
            if members >= (2 if len(columns) >= 3 else 3) and all(
                    head in c and c[head] != 0
                    and sum_is(c[head], t, members)
                    for t, c in zip(sums, columns, strict=True)):
                closed = j
                break
        if closed is None:
            i += 1
            continue
        found.add(head)
        i = closed + 1  # its members are no sections of their own
    if len(found) >= 2 or found and _totals_without(frame, known, found, rows, columns):
        return frozenset(found)
    # One row adding up the next few may be a statement's arithmetic ("Revenue" = "Cost of
    # sales" + "Gross profit"), a line of its own: only a total that leaves it out says it
    # is a section's sum.
    return frozenset()


def _totals_without(frame: Frame, known: frozenset[int], found: set[int], rows: list[int],
                    columns: list[dict[int, float]]) -> bool:
    """Whether a total row of the table adds up the rows without `found` in every column."""
    kept = [r for r in rows if r not in found]
    sums = [sum(c.get(r, 0.0) for r in kept) for c in columns]
    for total in known:
        cells = [frame.value(total, a.key) for a in frame.data_attrs]
        numbers = {v.number for v in cells if v is not None and v.number is not None}
        if all(any(sum_is(t, n, len(kept)) for n in numbers) for t in sums):
            return True
    return False


def _rival_the_total(frame: Frame, total: int, after: list[int]) -> bool:
    """Whether each row under a total is of the total's size in some numeric column
    ("Opponents" beside "Team totals", "Registered voters" beside "Total"): members left
    after a subtotal ("Domestic total" then "Mangoes", "Kiwis") are each a part of it."""
    for attr in frame.data_attrs:
        if not attr.measurable:
            continue
        whole = frame.value(total, attr.key)
        if whole is None or not whole.number:
            continue
        if all((v := frame.value(r, attr.key)) is not None and v.number is not None
               and abs(v.number) >= 0.5 * abs(whole.number) for r in after):
            return True
    return False


Cells = Callable[[str], Value | None]
"""A row's value by column key."""


def _frame_cells(frame: Frame, row: int) -> Cells:
    return lambda key: frame.value(row, key)


def restates_others(frame: Frame, row: int, cells: Cells) -> bool:
    """Whether a row is a total, subtotal or repeated-header row, from its cells."""
    path = frame.row_paths.get(row, ())
    if summary_path(path) or row in whole_members(frame):
        return True
    # Text cells, also in a column of codes that reads as numbers ("142", "142 Total").
    labels = [v.text.strip() for a in frame.data_attrs
              if (v := cells(a.key)) is not None and v.text.strip()
              and not (a.measurable and v.numeric)]
    if any(_summary_text(t) for t in labels):
        return True
    filled = sum(1 for a in frame.data_attrs if (v := cells(a.key)) is not None and v.text.strip())
    if any(_STATISTIC_END.search(t) and len(t.split()) <= 4 for t in labels) \
            and 2 * filled <= len(frame.data_attrs):
        # "Season 1 average" under the season's episodes, its other cells blank but the
        # figure averaged: a row of the group's statistic, no episode.
        return True
    texts = [v.text.strip().lower() for a in frame.data_attrs
             if (v := cells(a.key)) is not None and v.text.strip()]
    headers = _headers(frame)
    return len(texts) >= 2 and sum(t in headers for t in texts) >= max(2, len(texts) // 2)


def _summary_text(stripped: str) -> bool:
    return bool((_SUMMARY_START.match(stripped) or _TOTAL_END.search(stripped))
                and len(stripped.split()) <= 4)


def _headers(frame: Frame) -> set[str]:
    return {a.label.strip().lower() for a in frame.attrs}


def _scanned_summary_rows(frame: Frame, scan: CellScan) -> frozenset[int]:
    """`restates_others` on the rows that could meet it, found by SQL: a row whose label
    says so, a row with a cell whose text says total, a row with two cells that write a
    header."""
    candidates = _rows_labelled(frame, SUMMARY_LABEL)
    headers = _headers(frame)
    longest = max(map(len, headers), default=0)
    header_cells: Counter[int] = Counter()
    # `str.lower` never shortens a text: a header's text is no longer than the header.
    short, short_params = at_most(longest)
    said = " OR ".join(["text LIKE ?"] * len(_SUMMARY_WORDS))
    for attr in frame.data_attrs:
        if attr.col is None:
            continue
        # One pass over the column for both kinds of text.
        texts = scan.texts(attr.col, f"{said} OR {short}",
                           [*(f"%{w}%" for w in _SUMMARY_WORDS), *short_params])
        candidates.update(scan.rows_holding(attr.col, {t for t in texts
                                                       if _summary_text(t.strip())
                                                       or _STATISTIC_END.search(t.strip())}))
        header_cells.update(scan.rows_holding(attr.col, {t for t in texts
                                                         if t.strip().lower() in headers}))
    candidates.update(r for r, n in header_cells.items() if n >= 2)
    by_col = {a.key: a.col for a in frame.data_attrs}
    return frozenset(r for r, values in scan.row_values(sorted(candidates))
                     if restates_others(frame, r, lambda key, v=values: v.get(by_col[key])))


def _number_columns(frame: Frame) -> tuple[frozenset[str], frozenset[str]]:
    """The columns whose numbers are all years (two or more), and those whose numbers are
    all whole and all different (four or more), from the frame's values."""
    years: set[str] = set()
    distinct: set[str] = set()
    for attr in frame.attrs:
        stop.check()
        numbers = [v.number for v in frame.column(attr.key).values() if v.measurable]
        whole = [n for n in numbers if float(n).is_integer()]
        if len(whole) != len(numbers):
            continue
        if len(numbers) >= 2 and all(1800 <= n <= 2099 for n in whole):
            years.add(attr.key)
        if len(whole) >= 4 and len(set(whole)) == len(whole):
            distinct.add(attr.key)
    return frozenset(years), frozenset(distinct)


def _scanned_number_columns(frame: Frame, scan: CellScan
                            ) -> tuple[frozenset[str], frozenset[str]]:
    """`_number_columns` by SQL (row labels are text: no numbers)."""
    years: set[str] = set()
    distinct: set[str] = set()
    for attr in frame.data_attrs:
        if attr.col is None:
            continue
        count, whole, least, most, different = scan.number_facts(attr.col)
        if whole != count:
            continue
        if count >= 2 and least >= 1800 and most <= 2099:
            years.add(attr.key)
        if whole >= 4 and different == whole:
            distinct.add(attr.key)
    return frozenset(years), frozenset(distinct)


def find_swallowed_header(frame: Frame, summary_rows: frozenset[int],
                          scan: CellScan | None = None) -> str | None:
    """A lower header level that reads like its column's data, in two or more columns: the
    header detector took data rows for headers ("Canadian airdate > July 11, 2013", "Going to >
    Boston"), so the first rows are missing and every column is misnamed. Returns the first
    such header label, or None.

    A level is data-like when it is the text of a data cell of its column, or has the kind
    (date, number, duration ...) nearly all its column's cells have; years are headers."""
    layered = [a for a in frame.data_attrs if len(a.path) >= 2]
    if len(layered) < 2:
        return None  # two columns must be flagged: no need to read a cell
    # A header repeated inside the table (a row that writes a column's top header, such as
    # "Int#" or "Intervention" over a new block) is not data that looks like a header.
    tops = {a.path[0].strip() for a in frame.attrs if a.path and a.path[0].strip()}
    columns = (_scanned_kinds(frame, scan, summary_rows, tops, layered) if scan is not None
               else _frame_kinds(frame, summary_rows, tops, layered))
    flagged: list[str] = []
    for attr, (texts, kinds) in zip(layered, columns, strict=True):
        stop.check()
        cells = sum(kinds.values())
        if cells < 2:
            continue
        main = max(kinds, key=lambda k: kinds[k])
        for level in attr.path[1:]:
            label = level.strip()
            parsed = parse_value(label) if label else None
            if parsed is None or parsed.kind == "year" or (
                    parsed.number is not None and float(parsed.number).is_integer()
                    and 1800 <= parsed.number <= 2099):
                continue
            typed = main in _TYPED_KINDS and parsed.kind == main and \
                kinds[main] >= 0.8 * cells
            if label in texts or typed or label.casefold() in _NOT_GIVEN \
                    or _shaped_like(label, texts):
                flagged.append(label)
                break
    # Two columns, and a third of the layered ones: a sub-header or two that happen to equal
    # a cell do not make a header of data.
    return flagged[0] if len(flagged) >= max(2, len(layered) / 3) else None


_NOT_GIVEN = frozenset(("n/a", "na", "n.a.", "—", "–", "-", "..", "..."))
"""Marks of a figure not given: a data cell's, never a header's."""
_DIGIT_RUN = re.compile(r"\d+")


def _shaped_like(label: str, texts: set[str]) -> bool:
    """Whether a label with digits is written as nearly all its column's texts are ("5.1/10"
    over "6.9/10", "7.7/10" ...): a cell of the column, not a header."""
    if not _DIGIT_RUN.search(label) or len(texts) < 2:
        return False
    shape = _DIGIT_RUN.sub("9", label)
    return sum(_DIGIT_RUN.sub("9", t) == shape for t in texts) >= 0.8 * len(texts)


Kinds = tuple[set[str], dict[str, int]]
"""A column's stripped texts, and its count of cells by kind in the order first met."""


def _frame_kinds(frame: Frame, summary_rows: frozenset[int], tops: set[str], layered: list
                 ) -> list[Kinds]:
    """The non-blank cells of each layered column, on the rows that are neither summaries
    nor write a top header, from the frame (every cell of the table is read)."""
    rows = []
    for r in frame.rows:
        stop.check()
        if r not in summary_rows and not any(
                (v := frame.value(r, a.key)) is not None and v.text.strip() in tops
                for a in frame.attrs):
            rows.append(r)
    out = []
    for attr in layered:
        cells = [v for r in rows if (v := frame.value(r, attr.key)) is not None
                 and v.text.strip()]
        kinds: dict[str, int] = {}
        for v in cells:
            kinds[v.kind] = kinds.get(v.kind, 0) + 1
        out.append(({v.text.strip() for v in cells}, kinds))
    return out


def _scanned_kinds(frame: Frame, scan: CellScan, summary_rows: frozenset[int], tops: set[str],
                   layered: list) -> list[Kinds]:
    """`_frame_kinds` by SQL."""
    skip = set(summary_rows)
    depth = len(frame.levels)
    for path, rows in frame.side.path_groups().items():
        if any(t.strip() in tops for t in path[:depth]):  # the row labels' values
            skip.update(rows)
    short, short_params = at_most(max(map(len, tops), default=0))
    for attr in frame.data_attrs:
        if attr.col is not None and tops:
            found = scan.texts(attr.col, short, short_params)
            skip.update(scan.rows_holding(attr.col, {t for t in found if t.strip() in tops}))
    out = []
    for attr in layered:
        groups = scan.stripped_kinds(attr.col, skip) if attr.col is not None else []
        kinds: dict[str, int] = {}
        # The kinds in the order of their first cell, as the frame meets them: `max` keeps
        # the first of equal counts.
        for _, kind, count, _ in sorted((g for g in groups if g[0]), key=lambda g: g[3]):
            kinds[kind] = kinds.get(kind, 0) + count
        out.append(({g[0] for g in groups if g[0]}, kinds))
    return out
