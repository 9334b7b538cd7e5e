"""The run store: one SQLite file per run directory, the store of record for every stage, and
the only code that touches SQLite.

A connection and its migrations (`connection`, `migrate`, the SQL in `migrations/`) under parts
with one concern each (`runs`, `records` over `tables`, `model_calls`, `merge`, and the reads
`seed_units`, `annotation_progress`, `rating_keys`), composed into `RunStore` (`run_store`).
"""

from dialbench.store.connection import STORE_FILENAME, StoreError
from dialbench.store.migrate import schema_version_known
from dialbench.store.model_calls import CachedCall
from dialbench.store.records import AddResult, OnConflict
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
