"""The PostgreSQL database behind the Prefect server `make up` starts (and behind the tests' servers).

Why PostgreSQL: Prefect's SQLite database takes one writer at a time. On a
busy node a run's writes (logs, events, artifacts) and the server's own
services queue behind each other for up to a minute ("database is locked"),
and an automation's after-commit hook can wedge the server for good on
restart. PostgreSQL is the database Prefect recommends beyond one user.

The cluster is the machine's own PostgreSQL binaries (Debian's `postgresql`
package: `/usr/lib/postgresql/<version>/bin`, or `pg_ctl` on PATH) run on a
data folder of the project's (`.rlvr/postgres/` for `make up`), listening on
127.0.0.1 only, with no Unix socket, and a password kept in a file only its
owner can read. PostgreSQL refuses to run as root: as root, the server
processes run as the `postgres` system user the package creates, and the
data folder belongs to that user.

    python deployments/postgres.py install         # apt-get install postgresql, when no binaries are found
    python deployments/postgres.py start STATE     # create the cluster on first use, start it, print its URL
    python deployments/postgres.py url STATE       # the SQLAlchemy URL Prefect takes
    python deployments/postgres.py stop STATE      # stop it (the data stays)

A new cluster listens on a free port, or on RLVR_POSTGRES_PORT when set; the
port is kept with the cluster.

`make demo`'s throwaway server keeps SQLite: it lives for one run and one writer.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DATABASE = "prefect"
ROLE = "prefect"
SYSTEM_USER = "postgres"  # what Debian's package creates; the server runs as it when we are root
START_TIMEOUT_S = 120


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here, or they cannot run; the message says how to get them."""


def find_bin_dir() -> Path | None:
    """The folder holding `pg_ctl`, `initdb` and `postgres`: PATH first, then the newest Debian install."""
    on_path = shutil.which("pg_ctl")
    candidates = [Path(on_path).resolve().parent] if on_path else []
    versions = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(versions, key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.name)], reverse=True)
    for folder in candidates:
        if all((folder / tool).is_file() for tool in ("pg_ctl", "initdb", "postgres", "createdb")):
            return folder
    return None


def require_bin_dir() -> Path:
    folder = find_bin_dir()
    if folder is None:
        raise PostgresUnavailable(
            "no PostgreSQL server binaries found (pg_ctl on PATH or /usr/lib/postgresql/*/bin). Fix: "
            "`python deployments/postgres.py install` as root on Debian/Ubuntu (apt-get install postgresql), "
            "or install PostgreSQL another way and put its bin folder on PATH")
    if os.geteuid() == 0:
        _system_user()
    return folder


def install() -> Path:
    """Install Debian's `postgresql` package unless binaries are already there; returns their folder.

    Only the binaries are used: the package's own cluster (if its scripts started one) is left alone.
    """
    found = find_bin_dir()
    if found is not None:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise PostgresUnavailable("installing PostgreSQL needs apt-get and root. Fix: run "
                                  "`sudo apt-get install postgresql`, or install it with your system's package manager")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"], check=True, env=env)
    return require_bin_dir()


@dataclass(frozen=True)
class Cluster:
    """A cluster's state folder: `data/` (PGDATA), `connection.json` (port, password; mode 600), `server.log`."""

    state: Path

    @property
    def data(self) -> Path:
        return self.state / "data"

    @property
    def log(self) -> Path:
        return self.state / "server.log"

    @property
    def connection_file(self) -> Path:
        return self.state / "connection.json"

    def connection(self) -> dict[str, str | int]:
        return json.loads(self.connection_file.read_text())

    def url(self) -> str:
        """The SQLAlchemy URL for PREFECT_API_DATABASE_CONNECTION_URL (asyncpg driver)."""
        info = self.connection()
        return f"postgresql+asyncpg://{ROLE}:{info['password']}@127.0.0.1:{info['port']}/{DATABASE}"

    def initialised(self) -> bool:
        return (self.data / "PG_VERSION").is_file() and self.connection_file.is_file()

    def running(self) -> bool:
        if not (self.data / "postmaster.pid").is_file():
            return False
        done = self._pg_ctl("status", check=False)
        return done.returncode == 0

    def init(self, port: int | None = None) -> None:
        """Create the cluster (initdb) and its `prefect` database; the role's password is new and random."""
        self.state.mkdir(parents=True, exist_ok=True)
        if self.data.exists() and any(self.data.iterdir()):
            raise PostgresUnavailable(f"{self.data} is not empty but holds no complete cluster (no PG_VERSION or "
                                      f"{self.connection_file.name}). Fix: delete {self.state} to start over")
        password = secrets.token_urlsafe(24)
        port = port or _free_port()
        self.data.mkdir(mode=0o700, exist_ok=True)
        pwfile = self.state / ".initdb-password"
        pwfile.write_text(password + "\n")
        os.chmod(pwfile, 0o600)
        try:
            self._give_to_server_user(self.data, pwfile)
            self._run(["initdb", "-D", str(self.data), "-U", ROLE, "--pwfile", str(pwfile), "-E", "UTF8",
                       "--auth-host=scram-sha-256", "--auth-local=peer", "--no-instructions"])
        finally:
            pwfile.unlink(missing_ok=True)
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write("\n# rlvr-pipeline (deployments/postgres.py): local TCP only, no Unix socket\n"
                       f"listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = ''\n")
        self.connection_file.write_text(json.dumps({"port": port, "password": password}) + "\n")
        os.chmod(self.connection_file, 0o600)
        self.start()
        env = {**os.environ, "PGPASSWORD": password}
        self._run(["createdb", "-h", "127.0.0.1", "-p", str(port), "-U", ROLE, DATABASE], env=env)

    def start(self) -> None:
        """Start the server (no-op when it runs); returns once it accepts connections."""
        if self.running():
            return
        self.log.touch()
        self._give_to_server_user(self.log)
        self._pg_ctl("start", "-w", "-t", str(START_TIMEOUT_S), "-l", str(self.log))

    def stop(self) -> None:
        """Stop the server (fast shutdown: open sessions are closed, data is consistent); no-op when stopped."""
        if self.running():
            self._pg_ctl("stop", "-m", "fast", "-w", "-t", str(START_TIMEOUT_S))

    def ensure_running(self, port: int | None = None) -> str:
        """Create the cluster on first use (on `port`, else a free one), start it; returns its URL."""
        if not self.initialised():
            self.init(port)
        else:
            self.start()
        return self.url()

    # -- running PostgreSQL's tools ----------------------------------------
    def _pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return self._run(["pg_ctl", "-D", str(self.data), *args], check=check)

    def _run(self, argv: list[str], env: dict[str, str] | None = None,
             check: bool = True) -> subprocess.CompletedProcess:
        """Run a PostgreSQL tool (as the `postgres` user when we are root), in a session of its own so the
        server it may start outlives the caller's terminal and process group."""
        user = _system_user() if os.geteuid() == 0 else None
        done = subprocess.run([str(require_bin_dir() / argv[0]), *argv[1:]], env=env, cwd=self.state,
                              capture_output=True, text=True, start_new_session=True,
                              user=user.pw_uid if user else None, group=user.pw_gid if user else None,
                              extra_groups=[] if user else None)
        if check and done.returncode != 0:
            output = (done.stdout + done.stderr).strip()[-2000:]
            hint = (f" The `{SYSTEM_USER}` user must be able to reach {self.state} (every parent folder "
                    f"searchable by others). Fix: move the checkout, or set the state folder elsewhere"
                    if user and "ermission denied" in output else "")
            log = f"\n{self.log.read_text()[-2000:]}" if argv[0] == "pg_ctl" and self.log.is_file() else ""
            raise PostgresUnavailable(f"`{' '.join(argv[:2])}` failed ({done.returncode}):\n{output}{log}{hint}")
        return done

    def _give_to_server_user(self, *paths: Path) -> None:
        if os.geteuid() == 0:
            user = _system_user()
            for path in paths:
                os.chown(path, user.pw_uid, user.pw_gid)


def _system_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        raise PostgresUnavailable(f"running as root, but there is no `{SYSTEM_USER}` user to run PostgreSQL as "
                                  f"(it refuses to run as root). Fix: install Debian's postgresql package "
                                  f"(`python deployments/postgres.py install`), or run as a normal user") from None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python deployments/postgres.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("install", help="apt-get install postgresql unless its binaries are already here")
    for name, text in (("start", "create the cluster on first use, start it and print its URL"),
                       ("url", "print the cluster's URL"), ("stop", "stop the cluster (its data stays)")):
        commands.add_parser(name, help=text).add_argument("state", type=Path, help="state folder, e.g. .rlvr/postgres")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            print(f"PostgreSQL binaries: {install()}")
        elif args.command == "start":
            port = os.environ.get("RLVR_POSTGRES_PORT")
            print(Cluster(args.state.resolve()).ensure_running(int(port) if port else None))
        elif args.command == "url":
            print(Cluster(args.state.resolve()).url())
        else:
            Cluster(args.state.resolve()).stop()
    except PostgresUnavailable as err:
        print(f"postgres.py {args.command}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
