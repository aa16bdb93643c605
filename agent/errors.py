"""The agent's typed errors; `kind` is what a step event's `error.kind` reports.

Messages are written for two readers: the user, who sees them in the chat, and the model, which
gets them back to repair its SQL. `SqlCancelled` is not a query fault, so a repair loop that
catches `UnsafeSql`, `SqlTimeout` and `SqlError` lets a cancellation through.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of the errors the agent raises on purpose."""

    kind = "agent_error"


class UnsafeSql(AgentError):
    """The SQL is not a single read-only SELECT over this workspace's tables."""

    kind = "unsafe_sql"


class SqlTimeout(AgentError):
    """The query ran past its time limit and was stopped."""

    kind = "sql_timeout"


class SqlCancelled(AgentError):
    """The run was cancelled while the query ran."""

    kind = "sql_cancelled"


class SqlError(AgentError):
    """SQLite rejected or failed the query (syntax, unknown column, bad parameters...)."""

    kind = "sql_error"


class StaleTable(AgentError):
    """A plan names a version of a table that has since been read again."""

    kind = "stale_table"


class UnknownName(AgentError):
    """Model-written SQL names a table or column this workspace does not have."""

    kind = "unknown_name"


class RowCap(AgentError):
    """Model-written SQL returned more rows than an answer may hold."""

    kind = "row_cap"


class Untraceable(AgentError):
    """The values of model-written SQL cannot be traced back to the cells they came from."""

    kind = "no_provenance"
