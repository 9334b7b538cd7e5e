"""`RunStore`: a run directory's store, its parts composed over one connection."""

from __future__ import annotations

from dialbench.store.annotation_progress import AnnotationProgress
from dialbench.store.merge import ShardMerge
from dialbench.store.rating_keys import RatingKeys
from dialbench.store.seed_units import SeedUnits


class RunStore(ShardMerge, SeedUnits, AnnotationProgress, RatingKeys):
    """A run directory's SQLite store, the store of record for every stage: its runs, records,
    model calls, and the reads by SQL the features need. Use as a context manager, or call
    `close()`."""
