"""A throwaway PostgreSQL server for the tests: `initdb` into a temporary folder, started with
`pg_ctl` on a free loopback port, stopped and removed at the end.

The server binaries come from Debian's `postgresql` package (`scripts/system-deps.sh`
installs it), under /usr/lib/postgresql/<version>/bin. PostgreSQL refuses to run as root,
and the tests and CI do run as root: then the server runs as the `postgres` user the package
creates (`runuser`), in a folder that user owns, made directly under the system's temporary
folder because pytest's own temporary folders are closed to other users (mode 0700).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "tablelens"
START_ATTEMPTS = 3
"""A free port found by binding can be taken by another process before the server binds it;
a start that fails is retried on another port."""

# Durability is not under test: without fsync the per-test databases are made in
# milliseconds. Unix sockets are off so no system folder is needed; the tests use TCP.
CONFIG = """
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
"""


def bin_dir() -> Path | None:
    """The newest installed PostgreSQL's server binaries, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One running server; `url(name)` names a database on it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.user = None if os.geteuid() != 0 else _unprivileged_user()
        self.root = Path(tempfile.mkdtemp(prefix="tablelens-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        if self.user is not None:
            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        # The server's user may not be allowed into the current directory.
        return subprocess.run(command, cwd=self.root, capture_output=True, text=True,
                              timeout=120)

    def start(self) -> None:
        done = self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                         "-E", "UTF8", "--no-sync")
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(CONFIG)
        for _ in range(START_ATTEMPTS):
            self.port = _free_port()
            done = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w",
                             "-t", "60", "-o", f"-p {self.port}", "start")
            if done.returncode == 0:
                return
        raise RuntimeError(f"pg_ctl could not start PostgreSQL: {done.stderr.strip()}\n"
                           f"{self.log.read_text(errors='replace')[-2000:]}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.port:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def _unprivileged_user() -> str:
    """The user the server runs as under root: the Debian package's `postgres`, else
    `nobody`."""
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root with neither a postgres nor a nobody user: "
                       "PostgreSQL cannot be started")
