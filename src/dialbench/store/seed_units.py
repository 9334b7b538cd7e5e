"""Which dialogues grew from one seed, read by SQL from the dialogues' rows: the unit a chatbot
figure resamples and pairs on, and the self-chats of one ChatSEED a bootstrap draws together."""

from __future__ import annotations

import json
from functools import lru_cache

from dialbench.hashing import content_hash
from dialbench.store.connection import StoreConnection

_CHATSEED = "json_extract(record, '$.metadata.chatseed_dialogue')"
_SEED = "json(json_extract(record, '$.seed'))"
_REPLAY_OF = "json_extract(record, '$.metadata.replay_of')"
_UNIT_FIELDS = f"id, {_CHATSEED}, {_SEED}, {_REPLAY_OF}"


class SeedUnits(StoreConnection):
    """The dialogues' seed units: each dialogue's, and the dialogues of one."""

    def chatseeds(self) -> dict[str, str]:
        """Self-chat dialogue id -> the ChatSEED dialogue it continues: self-chats of one seed
        are not independent, and a bootstrap draws them together."""
        rows = self._db.execute(f"SELECT id, {_CHATSEED} FROM dialogues WHERE source = 'selfchat'")
        return {id_: seed for id_, seed in rows if isinstance(seed, str)}

    def seed_units(self) -> dict[str, str]:
        """Dialogue id -> the seed it grew from, the unit a chatbot figure resamples and pairs
        on: a self-chat's ChatSEED dialogue, else the hash of the dialogue's seed context (the
        dialogues of one MEDAL seed share their first user turn; the same seed in another run
        hashes the same), else the dialogue itself (imported dialogues: nothing shared). A replay
        (`dialbench replay`) keeps its recorded dialogue's seed and ChatSEED, and where the
        recorded one has neither, its unit is that dialogue: recorded and candidate pair."""
        rows = self._db.execute(f"SELECT {_UNIT_FIELDS} FROM dialogues")
        return {row[0]: _seed_unit(*row) for row in rows}

    def seed_mates(self, dialogue_id: str) -> tuple[str, dict[str, str | None]]:
        """The dialogue's seed unit (as `seed_units` gives it) and the dialogues of that unit,
        itself among them, each with its chatbot model, in the order stored; KeyError when no
        dialogue has the id. Read from the rows that share a field the unit is made of, not the
        whole store: one dialogue's page costs its seed."""
        own = self._db.execute(
            f"SELECT {_UNIT_FIELDS} FROM dialogues WHERE id = ?", (dialogue_id,)
        ).fetchone()
        if own is None:
            raise KeyError(dialogue_id)
        unit = _seed_unit(*own)
        rows = self._db.execute(
            f"SELECT {_UNIT_FIELDS}, assistant_model FROM dialogues "
            f"WHERE id IN (?, ?) OR {_REPLAY_OF} IN (?, ?) OR {_CHATSEED} = ? OR {_SEED} = ? "
            "ORDER BY rowid",
            (own[0], own[3], own[0], own[3], own[1], own[2]),
        )
        return unit, {row[0]: row[4] for row in rows if _seed_unit(*row[:4]) == unit}

    def seed_dialogues(self, unit: str) -> list[str]:
        """The ids of the dialogues of a seed unit (as `seed_units` gives it), in the order
        stored; none for a unit no dialogue has. A ChatSEED's or a lone dialogue's unit is read
        from the rows that share its field, as `seed_mates`; a seed context's unit holds only a
        hash, which SQL cannot select, so those are read from the seeded rows' units."""
        kind, _, key = unit.partition(":")
        values: tuple[str, ...] = (key,)
        if kind == "dialogue":
            where, values = f"id = ? OR {_REPLAY_OF} = ?", (key, key)
        elif kind == "chatseed":
            where = f"{_CHATSEED} = ?"
        else:
            where, values = f"{_SEED} IS NOT NULL", ()
        rows = self._db.execute(
            f"SELECT {_UNIT_FIELDS} FROM dialogues WHERE {where} ORDER BY rowid", values
        )
        return [row[0] for row in rows if _seed_unit(*row) == unit]


@lru_cache(maxsize=4096)
def _seed_hash(seed: str) -> str:
    """A seed context's part of its unit, kept for the seeds last seen: a seed's dialogues are
    stored side by side, so a pass over the store hashes each seed once, not once a dialogue."""
    return content_hash(json.loads(seed))[:16]


def _seed_unit(
    dialogue_id: str, chatseed: object, seed: str | None, replay_of: object = None
) -> str:
    """`SeedUnits.seed_units`'s unit of one dialogue, from its row of `_UNIT_FIELDS`: the one
    place the rule is written."""
    if isinstance(chatseed, str):
        return f"chatseed:{chatseed}"
    if seed is not None:
        return f"seed:{_seed_hash(seed)}"
    return f"dialogue:{replay_of if isinstance(replay_of, str) else dialogue_id}"
