"""Where the app's shared records live: the chat index, the share links and the LangGraph
checkpoints. One place chooses, so the app and the CLI never name a backend themselves.

- Without `TABLELENS_DATABASE_URL`: the data directory's `app.sqlite` (`SqliteChatIndex`,
  `SqliteShareLinks`, `SqliteSaver`), for one server.
- With it (`postgresql://...`): PostgreSQL (`PostgresChatIndex`, `PostgresShareLinks`,
  LangGraph's `PostgresSaver`) over one connection pool, for several servers at once.

Either way each chat's workspace (its files and `workspace.sqlite`) stays in its folder under
the data directory. Build one with `Settings.app_database()`; one per process is enough.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from storage.chat_index import ChatIndex
from storage.share_links import ShareLinks


class AppDatabase:
    """The chat index, share links and checkpointer of one backend (see the module doc).
    The checkpointer is made on first use: the CLI's reports need only the index. Raises
    `storage.postgres.DatabaseUnavailable` when the database cannot be reached."""

    def __init__(self, data_dir: str | Path, database_url: str | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.pool: Any = None
        self._checkpointer: Any = None
        self._lock = threading.Lock()  # the page's threads may all ask for it first at once
        if database_url:
            from storage.chat_index_pg import PostgresChatIndex
            from storage.postgres import open_pool, redacted
            from storage.share_links_pg import PostgresShareLinks

            self.backend = "postgresql"
            # For the log: names the database, never its password.
            self.where = f"PostgreSQL at {redacted(database_url)}"
            self.pool = open_pool(database_url)
            try:
                self.chat_index: ChatIndex = PostgresChatIndex(self.pool)
                self.share_links: ShareLinks = PostgresShareLinks(self.pool)
            except BaseException:
                self.pool.close()
                raise
        else:
            from storage.chat_index import FILE_NAME, SqliteChatIndex
            from storage.share_links import SqliteShareLinks

            self.backend = "sqlite"
            self.where = str(self.data_dir / FILE_NAME)
            self.chat_index = SqliteChatIndex.in_data_dir(self.data_dir)
            self.share_links = SqliteShareLinks.in_data_dir(self.data_dir)

    @property
    def checkpointer(self) -> Any:
        """The LangGraph checkpointer (`tablelens/checkpoints.py`); thread id = chat id."""
        from tablelens.checkpoints import open_checkpointer, open_postgres_checkpointer

        with self._lock:
            if self._checkpointer is None:
                self._checkpointer = (open_postgres_checkpointer(self.pool)
                                      if self.pool is not None
                                      else open_checkpointer(self.data_dir))
            return self._checkpointer

    def close(self) -> None:
        """Close the pool or the checkpointer's SQLite connection (the index and the links
        open a connection per call and hold none)."""
        if self.pool is not None:
            self.pool.close()
        elif self._checkpointer is not None:
            self._checkpointer.conn.close()

