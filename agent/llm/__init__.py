"""LLM mode: chat models through LangChain, behind the planner seam (`agent/planner.py`).

`settings` holds what a run needs to reach a model; `client` builds the chat model, asks it for
structured output with retries and method fallback, and records every call; `cache` keeps
responses in the chat's workspace.sqlite. Nothing a model writes is ever evaluated as code.
"""
