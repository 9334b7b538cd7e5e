"""The schema's migrations: the SQL scripts in `migrations/`, one per schema version, and how a
store at an older version is brought up to this one."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from importlib import resources


def migration_scripts() -> list[tuple[int, str]]:
    """The schema migrations shipped with the package, as (version, SQL) in order."""
    folder = resources.files("dialbench.store") / "migrations"
    scripts = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(int(f.name.split("_", 1)[0]), f.read_text(encoding="utf-8")) for f in scripts]


def schema_version_known() -> int:
    return max(version for version, _ in migration_scripts())


def upgrade(db: sqlite3.Connection, current: int) -> None:
    """Run the migrations newer than `current`, each followed by its version; the caller holds
    the transaction they all run in."""
    for version, script in migration_scripts():
        if version > current:
            for statement in _statements(script):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {version}")


def _statements(script: str) -> Iterator[str]:
    """A migration script's statements one by one: `executescript` would commit the
    transaction they must run in."""
    statement = ""
    for piece in script.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""
