"""The records of one file that repeat another, found in a pass that keeps no records.

Three kinds: an id given again with other content (which one the user meant is theirs to say:
an error); an identical repeat (stored once); and, where asked, a dialogue whose turns are a
strict prefix of another's with the same language, participants and seed, as production logs
write them: each call logs the conversation so far, so a conversation of five exchanges comes
as five dialogues, each the start of the next (a call answered with tool calls ends in their
turns with no result yet: the start of the next call's, which has them). The longest is kept,
wherever it is in the file.

Only 64-bit hashes are kept, in arrays: 24 bytes per record (its id's hash, its content's hash,
its line) and, when prefixes are looked for, 8 bytes per turn (a hash of each dialogue's every
proper prefix, and of the whole) and 8 more per tool turn. A million turns in 200,000 dialogues
take about 13 MB.
Two different contents share a hash with odds of about n²/2⁶⁵: for a million, one in 10⁷.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dialbench.hashing import canonical_json
from dialbench.schema import Dialogue, StoredRecord

if TYPE_CHECKING:  # numpy loads when a pass finishes: a command that fails first never waits
    import numpy as np
    import numpy.typing as npt

T = TypeVar("T")
NO_LINE = -1  # the line of an item from a format without lines


def _digest(hasher: Any) -> int:
    return int.from_bytes(hasher.digest(), "little")


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


@dataclass(frozen=True)
class Conflict:
    """A record whose id an earlier record of the file has, with other content."""

    position: int
    line: int | None
    first_line: int | None


@dataclass(frozen=True)
class Repeats:
    """What a pass found: the positions (in reading order) of the records not to store."""

    dropped: npt.NDArray[np.int64]
    repeats: int
    prefixes: int
    conflicts: list[Conflict]

    def kept(self, items: Iterable[T]) -> Iterator[T]:
        """The items, read again in the same order, but those dropped."""
        next_drop = 0
        for position, item in enumerate(items):
            if next_drop < len(self.dropped) and self.dropped[next_drop] == position:
                next_drop += 1
                continue
            yield item


class RepeatFinder:
    """Sees each record of a file once, in order; `finish` tells which repeat another."""

    def __init__(self, *, prefixes: bool) -> None:
        self.prefixes = prefixes
        self._ids = array("Q")
        self._contents = array("Q")
        self._lines = array("q")
        self._wholes = array("Q")  # per dialogue, when looking for prefixes: all its turns
        self._proper = array("Q")  # every proper prefix of every dialogue

    def add(self, line: int | None, record: StoredRecord) -> None:
        content = record.model_dump(mode="json", exclude={"provenance"})
        self._ids.append(_hash64(record.id))
        self._contents.append(_hash64(canonical_json(content)))
        self._lines.append(NO_LINE if line is None else line)
        if self.prefixes and isinstance(record, Dialogue):
            self._add_prefixes(content)

    def _add_prefixes(self, content: dict[str, Any]) -> None:
        """Each prefix's hash chains the previous one with the next turn's content (as in the
        dialogue's id: its metadata left out), so all of them cost one pass over the turns.

        A call answered with tool calls is logged before their results exist: its dialogue
        ends in tool turns with no text, and the next call's history holds the same calls
        answered. So a prefix that ends in tool turns is hashed a second time with their texts
        left out, and a dialogue that ends in a pending call (an empty result) is known by that
        hash: it is the start of the one where its calls were answered."""
        thread = [content["language"], content["participants"], content["seed"]]
        hasher = hashlib.blake2b(canonical_json(thread).encode("utf-8"), digest_size=8)
        unanswered = hasher.copy()  # the chain with the texts of the last tool turns left out
        turns = content["turns"]
        for index, turn in enumerate(turns, start=1):
            turn.pop("metadata", None)
            whole = index == len(turns)
            if turn["role"] == "tool":
                unanswered.update(canonical_json(turn | {"text": None}).encode("utf-8"))
                if not (whole and not turn["text"]):
                    self._proper.append(_digest(unanswered))
            hasher.update(canonical_json(turn).encode("utf-8"))
            if turn["role"] != "tool":
                unanswered = hasher.copy()
            if not whole:
                self._proper.append(_digest(hasher))
            elif turn["role"] == "tool" and not turn["text"]:
                self._wholes.append(_digest(unanswered))
            else:
                self._wholes.append(_digest(hasher))

    def finish(self) -> Repeats:
        import numpy as np

        ids = np.frombuffer(self._ids, dtype=np.uint64)
        contents = np.frombuffer(self._contents, dtype=np.uint64)
        order = np.argsort(ids, kind="stable")
        starts = np.ones(len(order), dtype=bool)
        starts[1:] = ids[order][1:] != ids[order][:-1]
        # Each record's first record of the same id: reading order is kept within equal ids.
        first = order[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
        differs = contents[order] != contents[first]
        conflicts = [
            Conflict(int(position), self._line(position), self._line(earlier))
            for position, earlier in sorted(zip(order[differs], first[differs], strict=True))
        ]
        repeated = np.zeros(len(ids), dtype=bool)
        repeated[order[~starts & ~differs]] = True
        prefix = self._prefix_mask() & ~repeated
        return Repeats(
            dropped=np.flatnonzero(repeated | prefix),
            repeats=int(repeated.sum()),
            prefixes=int(prefix.sum()),
            conflicts=conflicts,
        )

    def _prefix_mask(self) -> npt.NDArray[np.bool_]:
        """Which dialogues are a strict prefix of another: their whole is a proper prefix."""
        import numpy as np

        if not self.prefixes:
            return np.zeros(len(self._ids), dtype=bool)
        proper = np.sort(np.frombuffer(self._proper, dtype=np.uint64))
        wholes = np.frombuffer(self._wholes, dtype=np.uint64)
        if not len(proper):
            return np.zeros(len(wholes), dtype=bool)
        found = np.minimum(np.searchsorted(proper, wholes), len(proper) - 1)
        mask: npt.NDArray[np.bool_] = proper[found] == wholes
        return mask

    def _line(self, position: int) -> int | None:
        line = self._lines[position]
        return None if line == NO_LINE else line
