"""LLM mode: chat models through LangChain, behind the planner seam (`agent/planner.py`).

`settings` holds what a run needs to reach a model; `client` builds the chat model and asks it
for structured output (`structured`: how each method is bound and a reply read; `faults`: which
errors are retried), with retries, method fallback and a record of every call; `cache` keeps
replies in the chat's workspace.sqlite. `planner` is `LLMPlanner`: `context` shows the tables
within a token budget, `reply` turns the model's reply into a typed plan, `phrasing` puts the
validated numbers into its sentence; `column_step` asks for a derived column's values in
batches and checks each against its type. Nothing a model writes is ever evaluated as code.
"""
