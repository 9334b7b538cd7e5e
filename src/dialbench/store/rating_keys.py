"""What a judgment's or annotation's rating is tabulated by, read from indexed columns without
parsing a record: each dialogue's language and chatbot, each judge's configuration."""

from __future__ import annotations

from dialbench.schema import JudgeConfiguration
from dialbench.store.connection import StoreConnection


class RatingKeys(StoreConnection):
    """The keys `ratings` places and names ratings by."""

    def judge_configurations(self) -> list[tuple[str, str, JudgeConfiguration | None]]:
        """Each distinct (protocol, judge model, configuration) of the stored judgments, in no
        set order: what a judge's name is made of (`ratings.JudgeNames`), read by SQL without
        parsing a judgment (None: judged before configurations were recorded)."""
        rows = self._db.execute(
            "SELECT DISTINCT protocol, judge_model, json_extract(record, '$.configuration') "
            "FROM judgments"
        )
        return [
            (
                protocol,
                judge_model,
                None if found is None else JudgeConfiguration.model_validate_json(found),
            )
            for protocol, judge_model, found in rows
        ]

    def dialogue_placements(self) -> dict[str, tuple[str, str | None]]:
        """Dialogue id -> (language, chatbot model), in the order they were stored: where a
        judgment or annotation of it falls in tables by language and chatbot, without reading
        whole dialogues."""
        rows = self._db.execute(
            "SELECT id, language, assistant_model FROM dialogues ORDER BY rowid"
        )
        return {id_: (language, chatbot) for id_, language, chatbot in rows}
