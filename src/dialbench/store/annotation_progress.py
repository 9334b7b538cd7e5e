"""How far each annotator has got: which dialogues they labelled and which judgments they
reviewed, finished or not (read from the progress index alone, not the records), and when they
last saved a label."""

from __future__ import annotations

from collections.abc import Sequence

from dialbench.store.connection import StoreConnection


class AnnotationProgress(StoreConnection):
    """The annotators' progress, as the annotation and review pages and `annotate` show it."""

    def dialogue_labels(
        self, annotators: Sequence[str] | None = None
    ) -> list[tuple[str, str, bool]]:
        """(annotator, dialogue id, complete) of every label of a whole dialogue (of these
        annotators), reviews of a judge left out, by annotator and dialogue."""
        whole_dialogue = "turn_index IS NULL AND other_dialogue_id IS NULL AND review_of IS NULL"
        return self._progress("dialogue_id", whole_dialogue, annotators)

    def review_labels(self, annotators: Sequence[str] | None = None) -> list[tuple[str, str, bool]]:
        """(annotator, judgment id, complete) of every review of a judgment (by these
        annotators), by annotator and judgment."""
        return self._progress("review_of", "review_of IS NOT NULL", annotators)

    def last_annotated(self) -> dict[str, str]:
        """Annotator -> when they last saved a label (ISO 8601, UTC), for those who have."""
        rows = self._db.execute(
            "SELECT annotator_id, MAX(json_extract(record, '$.created_at')) FROM annotations "
            "GROUP BY annotator_id HAVING MAX(json_extract(record, '$.created_at')) IS NOT NULL"
        )
        return dict(rows.fetchall())

    def _progress(
        self, labelled: str, which: str, annotators: Sequence[str] | None
    ) -> list[tuple[str, str, bool]]:
        """(annotator, the `labelled` column, complete) of the annotations `which` selects, of
        these annotators (every one's when None), by annotator and that column."""
        query = f"SELECT annotator_id, {labelled}, complete FROM annotations WHERE {which}"
        if annotators is not None:
            query += f" AND annotator_id IN ({', '.join('?' * len(annotators))})"
        rows = self._db.execute(
            query + f" ORDER BY annotator_id, {labelled}", tuple(annotators or ())
        )
        return [(annotator, target, bool(complete)) for annotator, target, complete in rows]
