"""One script run of a browser session at a time, so one thread at a time uses its workspace.

Streamlit's fast reruns (`runner.fastReruns`, on by default) start the run a click (or a file
added to an uploader) asks for at once, on a new thread, while the run it replaces is still
ending: that one ends only at its next `st.*` call, and if it was showing an upload it then
still cancels the upload's worker, waits for the rollback and records "upload stopped" in the
chat (tablelens/uploads.py, streamlit_app.py `ingest_files`). Both runs use the session's one
`Workspace`, one SQLite connection: the new run saw the old upload's uncommitted rows (a file
with no tables in the workspace panel, "… is already in this chat"), joined its transaction
(what it stored was rolled back with it) and broke its savepoints ("no such savepoint:
sqlite_utils_query").

So every script run of a session (the page, and each fragment or dialog rerun on its own)
holds the session's lock while it runs: a new run starts only once the one it replaces has
ended, its upload worker joined and its messages written.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

LOCK_KEY = "_script_run_lock"
"""Where the session's lock is kept in its `st.session_state`."""
_MAKING = threading.Lock()  # two first runs of a session make one lock


@contextmanager
def one_at_a_time(session_state: MutableMapping[str, Any]) -> Iterator[None]:
    """Hold the session's script-run lock for the block, waiting for another run's end.

    Re-entrant: a fragment drawn inside the page's run takes it again on the same thread.
    """
    with _MAKING:
        lock = session_state.get(LOCK_KEY)
        if lock is None:
            lock = session_state[LOCK_KEY] = threading.RLock()
    with lock:
        yield
