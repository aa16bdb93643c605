"""The question-answering agent (LangGraph steps over the stored tables)."""
