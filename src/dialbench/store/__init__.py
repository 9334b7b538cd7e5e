"""The run store: one SQLite file per run directory, the store of record for every stage, and
the only code that touches SQLite.

A connection and its migrations (`connection`, `migrate`, the SQL in `migrations/`) under parts
with one concern each (`invocations`, `records` over `tables`, `model_calls`, `merge`, and the
reads `seed_units`, `annotation_progress`, `rating_keys`), composed into `RunStore`
(`run_store`). Each name is imported when first asked for, so a command line typed by
`OnConflict` (`conflicts`) loads neither the records nor SQLite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.store.conflicts import OnConflict
    from dialbench.store.connection import STORE_FILENAME, StoreError
    from dialbench.store.migrate import schema_version_known
    from dialbench.store.model_calls import CachedCall
    from dialbench.store.records import AddResult
    from dialbench.store.run_store import RunStore
    from dialbench.store.tables import TABLES

__all__ = [
    "STORE_FILENAME",
    "TABLES",
    "AddResult",
    "CachedCall",
    "OnConflict",
    "RunStore",
    "StoreError",
    "schema_version_known",
]

__getattr__ = lazy_exports(
    __name__,
    {
        ".conflicts": ["OnConflict"],
        ".connection": ["STORE_FILENAME", "StoreError"],
        ".migrate": ["schema_version_known"],
        ".model_calls": ["CachedCall"],
        ".records": ["AddResult"],
        ".run_store": ["RunStore"],
        ".tables": ["TABLES"],
    },
)
