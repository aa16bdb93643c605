"""The fixed split of bench-train into two halves by table: tune on half A, report half B.

A question belongs to the half of its (first) table: the first byte of
sha256("<suite>/<table path>") is even for A, odd for B. The split depends on nothing but the
suite's name and the table's path, so every issue that tunes on bench-train (Precision,
Retrieval, Documents) uses the same halves, and every question of one table stays on one side.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

Half = Literal["A", "B"]


def half_of(suite: str, question: dict[str, Any]) -> Half:
    """The half a question of `suite` belongs to, by its (first) table."""
    table = question.get("table")
    if isinstance(table, list):
        table = table[0] if table else ""
    digest = hashlib.sha256(f"{suite}/{table}".encode()).digest()
    return "A" if digest[0] % 2 == 0 else "B"


def split(suite: str, questions: list[dict[str, Any]]) -> dict[Half, list[dict[str, Any]]]:
    """The questions of a suite, by half, in their order."""
    halves: dict[Half, list[dict[str, Any]]] = {"A": [], "B": []}
    for q in questions:
        halves[half_of(suite, q)].append(q)
    return halves
