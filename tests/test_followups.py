"""Follow-up questions: a fragment ("and for Q3?") after an answered question is asked as
the previous question with one part swapped, through the app's persistent checkpointer.

Over the sample P&L (financial.xlsx: rows Revenue, Operating Expenses > Salaries / Rent /
Marketing, Net Income; columns H1 2024 > Q1, Q2 and H2 2024 > Q3, Q4), with the real
SqliteSaver over `app.sqlite` (`tablelens/checkpoints.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.followup import follow_up, fragment_of
from agent.frame import load_frames
from agent.graph import build_graph
from agent.run import answer_question
from storage.workspace import Workspace
from tablelens.checkpoints import open_checkpointer
from tests.test_agent_ops import write_book

FIRST = "What was the total operating expense for Q2 2024?"


@pytest.fixture
def workspace(tmp_path: Path, samples: Path) -> Iterator[Workspace]:
    ws = Workspace(tmp_path / "ws")
    ws.add_file(samples / "financial.xlsx")
    yield ws
    ws.close()


class Chat:
    """One chat's questions through a checkpointed graph, as the app runs them."""

    def __init__(self, workspace: Workspace, data_dir: Path, chat_id: str = "chat-1") -> None:
        self.workspace, self.data_dir, self.chat_id = workspace, data_dir, chat_id
        self.restart()

    def restart(self) -> None:
        """A new process: a new connection to app.sqlite and a new graph."""
        self.graph = build_graph(open_checkpointer(self.data_dir))

    def ask(self, question: str):
        return answer_question(self.workspace, question, graph=self.graph,
                               thread_id=self.chat_id)


def decompose_detail(answer) -> str:
    return next(s.detail for s in answer.steps if s.node == "decompose" and s.phase == "end")


@pytest.fixture
def chat(workspace, tmp_path) -> Chat:
    return Chat(workspace, tmp_path / "data")


def test_a_column_a_row_and_an_operation_are_swapped_in_turn(chat) -> None:
    assert chat.ask(FIRST).values == [375]
    q3 = chat.ask("and for Q3?")
    assert q3.values == [405]  # 250 + 55 + 100
    # Q3 is a sibling of Q2 under "H1 2024"/"H2 2024": the quarter alone is swapped.
    assert "asked as \u201cWhat was the total operating expense for Q3 2024?\u201d" \
        in decompose_detail(q3)
    assert "\u201cQ3\u201d for \u201cQ2\u201d" in decompose_detail(q3)
    revenue = chat.ask("And the revenue?")
    assert revenue.values == [710]  # Q3 revenue: the column carried over from the last turn
    assert [e.ref for e in revenue.evidence] == ["D3"]
    rent = chat.ask("what about Rent?")
    assert rent.values == [55] and [e.ref for e in rent.evidence] == ["D6"]
    average = chat.ask("and the average?")
    assert "asked as \u201cWhat was the average Rent for Q3 2024?\u201d" \
        in decompose_detail(average)


def test_what_about_swaps_the_column(chat) -> None:
    chat.ask(FIRST)
    assert chat.ask("What about Q3?").values == [405]


def test_the_average_replaces_the_total(chat) -> None:
    chat.ask(FIRST)
    answer = chat.ask("and the average?")
    assert answer.values == [125]  # (230 + 50 + 95) / 3


def test_follow_ups_work_after_a_restart(chat) -> None:
    chat.ask(FIRST)
    chat.restart()
    assert chat.ask("and for Q3?").values == [405]


def test_an_unrelated_question_inherits_nothing(chat) -> None:
    chat.ask(FIRST)
    whole = chat.ask("What was the rent in Q1?")
    assert whole.values == [50] and "follow-up" not in decompose_detail(whole)
    own = chat.ask("And what was the revenue in Q4?")
    assert own.values == [680] and "follow-up" not in decompose_detail(own)


def test_a_follow_up_reads_the_last_planned_turn_not_a_refused_one(chat) -> None:
    chat.ask("What was the rent in Q2?")
    assert chat.ask("How many penguins live on the moon?").answer is None
    assert chat.ask("and for Q1?").values == [50]


def test_a_fragment_the_table_cannot_place_is_not_rewritten(chat) -> None:
    chat.ask(FIRST)
    answer = chat.ask("and for penguins?")
    assert answer.answer is None and "follow-up" not in decompose_detail(answer)


def test_two_chats_keep_their_own_previous_question(workspace, tmp_path) -> None:
    one = Chat(workspace, tmp_path / "data", "chat-1")
    two = Chat(workspace, tmp_path / "data", "chat-2")
    one.ask(FIRST)
    two.ask("What was the revenue in Q1?")
    assert one.ask("and for Q3?").values == [405]
    assert two.ask("and for Q3?").values == [710]


def test_without_a_checkpointer_a_fragment_is_just_a_message(workspace) -> None:
    answer_question(workspace, FIRST)
    assert answer_question(workspace, "and for Q3?").answer is None


@pytest.mark.parametrize(("message", "fragment"), [
    ("and for Q3?", "for Q3"), ("What about Rent?", "Rent"), ("And the revenue?", "the revenue"),
    ("how about 2019", "2019"), ("Same for Q4?", "Q4"),
    ("And what was the rent in Q1?", None), ("What was the rent?", None), ("and?", None),
])
def test_a_fragment_is_told_from_a_whole_question(message, fragment) -> None:
    assert fragment_of(message) == fragment


def test_two_chats_answering_at_once_and_an_upload_beside_them_stay_apart(tmp_path, samples
                                                                          ) -> None:
    """Two run threads in two chats share one checkpointer (as the app's runs do) while a
    third thread uploads into the first chat: each chat's follow-ups read its own turns, and
    the upload is stored whole."""
    import threading
    from contextlib import closing

    for name in ("a", "b"):
        with closing(Workspace(tmp_path / name)) as ws:
            ws.add_file(samples / "financial.xlsx")
    graph = build_graph(open_checkpointer(tmp_path / "data"))
    start = threading.Barrier(3)
    got: dict[str, list] = {}
    failures: list[BaseException] = []

    def chat(name: str, questions: list[str]) -> None:
        try:
            with closing(Workspace(tmp_path / name)) as ws:  # a run thread's own connection
                start.wait()
                got[name] = [answer_question(ws, q, graph=graph, thread_id=name).values
                             for q in questions]
        except BaseException as exc:  # noqa: BLE001  # reported by the main thread
            failures.append(exc)

    def upload() -> None:
        try:
            with closing(Workspace(tmp_path / "a")) as ws:
                start.wait()
                ws.add_file(samples / "hr.xlsx")
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    threads = [threading.Thread(target=chat, args=("a", [FIRST, "and for Q3?", "and for Q4?"])),
               threading.Thread(target=chat, args=("b", ["What was the revenue in Q1?",
                                                         "and for Q3?", "what about Rent?"])),
               threading.Thread(target=upload)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert got["a"] == [[375], [405], [385]]  # Q4: 240 + 55 + 90
    assert got["b"] == [[500], [710], [55]]
    with closing(Workspace(tmp_path / "a")) as ws:
        assert sorted(s.name for s in ws.sources()) == ["financial.xlsx", "hr.xlsx"]
        assert len(ws.table_ids()) >= 2


ASSETS = [
    ["Fixed assets by industry (HK$ thousand)"],
    ["Industry", "2022", None, "2023", None],
    [None, "Gross additions to fixed assets", "Disposal of fixed assets",
     "Gross additions to fixed assets", "Disposal of fixed assets"],
    ["Food, beverages and tobacco", 1200, 65, 1350, 80],
    ["Textiles and wearing apparel", 25225, 410, 23697, 390],
]


def test_a_year_heading_every_column_is_swapped_alone(tmp_path) -> None:
    # "2023" used to replace every word that named the column, the year and "Gross additions
    # to fixed assets" alike: "2023 to in for Textiles and wearing apparel?".
    path = write_book(tmp_path / "assets.xlsx", "Assets", ASSETS,
                      merges=["A1:E1", "A2:A3", "B2:C2", "D2:E2"])
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
        [frame] = load_frames(ws)
        previous = "Gross additions to fixed assets in 2022 for Textiles and wearing apparel"
        asked = follow_up("what about 2023", previous, frame)
        assert asked is not None
        assert asked.question == ("Gross additions to fixed assets in 2023 for Textiles and "
                                  "wearing apparel?")
        assert answer_question(ws, asked.question).values == [23697]
    finally:
        ws.close()


def _asked_after(tmp_path: Path, path: Path, message: str, previous: str):
    """The follow-up `message` after `previous` over the one table of `path`: what it asks,
    and that question's answer."""
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
        [frame] = load_frames(ws)
        asked = follow_up(message, previous, frame)
        assert asked is not None
        return asked.question, answer_question(ws, asked.question).values
    finally:
        ws.close()


def test_a_header_said_with_its_value_is_no_column_to_swap(tmp_path) -> None:
    # "What about the South region?" swapped "region" for the quarter: "What were Gadget
    # sales for South in region 2024?" (a browser tester).
    path = write_book(tmp_path / "sales.xlsx", "Sales", [
        ["Region", "Product", "Q1", "Q2", "Q3", "Q4"],
        ["North", "Gadget", 200, 210, 220, 230], ["North", "Widget", 70, 75, 77, 79],
        ["South", "Gadget", 180, 185, 190, 195], ["South", "Widget", 30, 35, 37, 39]])
    assert _asked_after(tmp_path, path, "What about the South region?",
                        "What were Gadget sales for North in Q4?") == (
        "What were Gadget sales for South in Q4?", [195])


def test_a_label_with_small_words_inside_is_swapped_whole(tmp_path) -> None:
    # "Sales and marketing" was swapped word by word around its "and": "What was the General
    # and administrative and expense in 2018?", refused (a browser tester).
    path = tmp_path / "expenses.csv"
    path.write_text("Item,2019,2018\nResearch and development,6577,6332\n"
                    "Sales and marketing,9571,9242\nGeneral and administrative,1827,2144\n",
                    encoding="utf-8")
    assert _asked_after(tmp_path, path, "What about General and administrative?",
                        "What was the Sales and marketing expense in 2018?") == (
        "What was the General and administrative expense in 2018?", [2144])
