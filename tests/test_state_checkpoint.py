"""A finished run's graph state is plain data: it survives a SqliteSaver checkpoint whole.

The saver is strict (only the types the graph's state schema declares may be restored), and the
state is read back through a new connection and a new graph, as a restarted app would.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel, TypeAdapter

from agent.combine import PartAnswer
from agent.decompose import Split
from agent.frame import TableRef
from agent.graph import build_graph
from agent.plan import Aggregate, Combined, Lookup, Plan, Rank
from agent.question import Analysis
from agent.results import Result
from agent.run import answer_question
from agent.state import SqlAnswer, checkpoint_types
from storage.workspace import Workspace
from tests.test_agent_ops import RACE, write_book

CASES = [
    # (files, question, plan type, answer): a lookup, a ranking through the column step (a
    # derived table in the state), and one plan over two tables.
    (lambda d: [Path(__file__).parent / "samples" / "financial.xlsx"],
     "What was the revenue in Q3 2024?", Lookup, "710"),
    (lambda d: [write_book(d / "race.xlsx", "Final", RACE)],
     "Which swimmer had the shortest time?", Rank, "Li Wei"),
    (lambda d: [write_book(d / "jan.xlsx", "Sales", [["Region", "Sales"], ["North", 100]]),
                write_book(d / "feb.xlsx", "Sales", [["Region", "Sales"], ["North", 120]])],
     "What were the total sales in North across both months?", Combined, "220"),
]


def _saver(path: Path) -> SqliteSaver:
    # Strict: a type the agent does not declare for its checkpoints would come back as a bare
    # dict, and the checks below would fail.
    conn = sqlite3.connect(path, check_same_thread=False)
    return SqliteSaver(conn, serde=JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types()))


def _plain(value: object) -> bool:
    """True when a state value is JSON-like data or one of the agent's own data models."""
    if isinstance(value, (str, int, float, bool, type(None))):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, BaseModel):
        return _plain(value.model_dump())
    return False


@pytest.mark.parametrize(("files", "question", "plan_type", "text"), CASES)
def test_a_finished_run_round_trips_through_sqlite_saver(tmp_path, files, question, plan_type,
                                                         text):
    ws = Workspace(tmp_path / "ws")
    for path in files(tmp_path):
        ws.add_file(path)
    config = {"configurable": {"thread_id": "chat"}}
    saver = _saver(tmp_path / "checkpoints.sqlite")
    answer = answer_question(ws, question, graph=build_graph(saver), thread_id="chat")
    assert answer.answer == text
    state = build_graph(saver).get_state(config).values

    restored = build_graph(_saver(tmp_path / "checkpoints.sqlite")).get_state(config).values
    assert restored == state

    plan = restored["plan"]
    assert isinstance(plan, plan_type) and isinstance(plan.table, TableRef)
    assert isinstance(restored["analysis"], Analysis)
    assert isinstance(restored["result"], Result)
    assert restored["result"].values == answer.values
    as_json = TypeAdapter(Plan)
    assert as_json.validate_json(as_json.dump_json(plan)) == plan  # JSON on disk works too
    assert isinstance(restored["sql_answer"], SqlAnswer)
    assert restored["step_tables"][-1] == restored["sql_answer"].table
    assert restored["verified"] is True and restored["outcome"] == "answered"
    assert restored["grounding"]["description"] == plan.description
    for key, value in restored.items():
        if key != "messages":
            assert _plain(value), key
    if isinstance(plan, Combined):
        assert all(isinstance(part, Aggregate | Lookup) for part in plan.parts)
    ws.close()


def test_a_split_run_round_trips_with_its_parts(tmp_path):
    ws = Workspace(tmp_path / "ws")
    ws.add_file(Path(__file__).parent / "samples" / "financial.xlsx")
    config = {"configurable": {"thread_id": "chat"}}
    saver = _saver(tmp_path / "checkpoints.sqlite")
    # Two rows and two columns: the rules split it (quarters alone they answer whole).
    answer = answer_question(ws, "How much higher was the revenue in Q2 than the rent in Q1?",
                             graph=build_graph(saver), thread_id="chat")
    assert answer.values == [570]
    state = build_graph(saver).get_state(config).values
    restored = build_graph(_saver(tmp_path / "checkpoints.sqlite")).get_state(config).values
    assert restored == state
    assert isinstance(restored["split"], Split) and restored["split"].combine == "difference"
    [first] = restored["parts_done"]
    assert isinstance(first, PartAnswer) and first.result.values == [620]
    assert restored["part"] == 1 and restored["result"].values == [50]
    for key, value in restored.items():
        if key != "messages":
            assert _plain(value), key
    ws.close()


def test_a_text_answer_is_the_checkpointed_state_and_the_chat_s_last_message(tmp_path):
    # The documents' text is read by a node of the graph (read_text), so the chat's state,
    # which a follow-up is read against, holds the answer the user saw, not the refusal.
    ws = Workspace(tmp_path / "ws")
    ws.add_file(io.BytesIO(b"Staff\n\nThe company had 42 employees at the end of June.\n"),
                "notes.txt")
    config = {"configurable": {"thread_id": "chat"}}
    saver = _saver(tmp_path / "checkpoints.sqlite")
    question = "How many employees did the company have at the end of June?"
    answer = answer_question(ws, question, graph=build_graph(saver), thread_id="chat")
    assert answer.answer == "42"
    state = build_graph(saver).get_state(config).values
    assert state["outcome"] == "answered" and state["answer"]["answer"] == answer.answer
    assert [type(m).__name__ for m in state["messages"]] == ["HumanMessage", "AIMessage"]
    assert state["messages"][-1].content == answer.answer
    ws.close()
