"""What the storage suite's other processes run (tests/test_app_database.py): a module of its
own, importable by a spawned process, which starts from a fresh interpreter as a second app
server would.

`counter_graph` is a one-node LangGraph graph whose state counts its runs; the suite checks
checkpoints through it, as the app's follow-up questions use them.
"""

from __future__ import annotations

import operator
import traceback
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph


class Counted(TypedDict, total=False):
    count: int
    notes: Annotated[list[str], operator.add]


def _bump(state: Counted) -> dict[str, Any]:
    count = state.get("count", 0) + 1
    return {"count": count, "notes": [f"run {count}"]}


def counter_graph(checkpointer: Any) -> Any:
    graph = StateGraph(Counted)
    graph.add_node("bump", _bump)
    graph.add_edge(START, "bump")
    graph.add_edge("bump", END)
    return graph.compile(checkpointer=checkpointer)


def thread(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def write_everything(data_dir: str, url: str | None, worker: int, rounds: int,
                     start: Any, errors: Any) -> None:
    """One process's share of the concurrent writes: its own chats, links and checkpoint
    thread, plus questions on the chat every process uses (`shared`), which worker 1 renames
    half way through. Errors go to `errors` as text (a traceback), none on success."""
    from tablelens.app_database import AppDatabase

    try:
        database = AppDatabase(data_dir, url)
        try:
            graph = counter_graph(database.checkpointer)
            start.wait(60)  # every process is ready: their writes overlap
            for i in range(rounds):
                database.chat_index.touch(f"p{worker}-{i}", question=f"Question {i}", files=i)
                database.chat_index.touch("shared", question=f"From {worker}", files=worker)
                database.share_links.add(f"p{worker}-link{i}", f"p{worker}-{i}", title="Costs")
                graph.invoke({"notes": []}, thread(f"p{worker}-thread"))
                if worker == 1 and i == rounds // 2:
                    database.chat_index.rename("shared", "Kept by the rename")
        finally:
            database.close()
    except BaseException:  # noqa: BLE001 - handed to the test, which fails with it
        errors.put(traceback.format_exc())
