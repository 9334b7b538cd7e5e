"""A seeded sample of a run's dialogues, stratified by language and length, copied with their
judgments and annotations into a run of its own: a team judges, annotates and meta-evaluates a
representative 2,000 of a million, while a cheap metric scores the whole source, and what it
scored of the sample comes along.

Strata: each language's dialogues (by their stored tag) in `length_buckets` buckets cut at the
quantiles of their length, the words (for Chinese and Japanese the characters) of the user's and
assistant's turns; tool turns are left out. Allocation is proportional after one dialogue for
each stratum, where the sample has room for that (size >= strata): each stratum gets one, then
its share of the rest in proportion to its dialogues beyond that one, rounded by largest
remainder; with more strata than the size, the largest strata get them. Within a stratum the
picks are the dialogues whose hash of (seed, id) is smallest: a uniform draw, the same for the
same seed and dialogues, in whatever order they were stored.

Memory: 12 bytes per dialogue (its length and its hash) during one read of the source; a second
pass reads ids only; then the picked dialogues are read one by one.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson
from pydantic import Field

from dialbench.analysis.text import length_unit, utterance_length
from dialbench.errors import DialbenchError
from dialbench.io.importer import StepProgress
from dialbench.schema import SPEAKERS, Annotation, Dialogue, Judgment, Record, StoredRecord
from dialbench.store import RunStore

PROGRESS_EVERY = 1000
COPY_BATCH = 500


class SampleConfig(Record):
    size: int = Field(default=2000, ge=1, description="dialogues to pick")
    seed: int = 0
    length_buckets: int = Field(default=4, ge=1, description="per language, at length quantiles")


class Stratum(Record):
    language: str
    bucket: int = Field(description="0: the shortest dialogues of the language")
    unit: str = Field(description="what the lengths count: words or characters")
    shortest: int
    longest: int
    dialogues: int
    picked: int


class SampleResult(Record):
    run_id: str
    strata: list[Stratum]
    dialogues: int
    judgments: int
    annotations: int


def _key(seed: int, dialogue_id: str) -> int:
    digest = hashlib.blake2b(f"{seed}:{dialogue_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


@dataclass
class _Measured:
    """One language's dialogues as the sample needs them: lengths and keys, in reading order."""

    lengths: array[int] = field(default_factory=lambda: array("I"))
    keys: array[int] = field(default_factory=lambda: array("Q"))


def _measure(store: RunStore, seed: int, progress: StepProgress | None) -> dict[str, _Measured]:
    total = store.count(Dialogue)
    measured: dict[str, _Measured] = {}
    for done, text in enumerate(store.records_json(Dialogue), start=1):
        record = orjson.loads(text)
        language = record["language"]
        length = sum(
            utterance_length(turn["text"], language)
            for turn in record["turns"]
            if turn["role"] in SPEAKERS
        )
        entry = measured.setdefault(language, _Measured())
        entry.lengths.append(length)
        entry.keys.append(_key(seed, record["id"]))
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress("measuring", done, total)
    return measured


def allocate(size: int, counts: Sequence[int]) -> list[int]:
    """Picks per stratum: one each where there is room, the rest in proportion (see above)."""
    if size >= sum(counts):
        return list(counts)
    floor = 1 if len(counts) <= size else 0
    weights = [n - floor for n in counts]
    rest = size - floor * len(counts)
    shares = [rest * w / sum(weights) for w in weights]
    picks = [floor + int(share) for share in shares]
    by_remainder = sorted(range(len(counts)), key=lambda i: (-(shares[i] % 1), -counts[i], i))
    for i in by_remainder[: size - sum(picks)]:
        picks[i] += 1
    return picks


def _buckets(lengths: npt.NDArray[np.uint32], buckets: int) -> npt.NDArray[np.intp]:
    """Each dialogue's bucket: cut at the length quantiles, ties kept together, none empty."""
    quantiles = np.arange(1, buckets) / buckets
    cuts = np.unique(np.quantile(lengths, quantiles, method="inverted_cdf"))
    found = np.searchsorted(cuts, lengths, side="left")
    return np.unique(found, return_inverse=True)[1].reshape(-1)


def _choose(measured: dict[str, _Measured], config: SampleConfig) -> tuple[list[Stratum], set[int]]:
    """The strata, and the keys of the dialogues picked."""
    members: list[tuple[str, int, npt.NDArray[np.uint32], npt.NDArray[np.uint64]]] = []
    for language in sorted(measured):
        lengths = np.frombuffer(measured[language].lengths, dtype=np.uint32)
        keys = np.frombuffer(measured[language].keys, dtype=np.uint64)
        bucket_of = _buckets(lengths, config.length_buckets)
        for bucket in range(int(bucket_of.max()) + 1):
            inside = bucket_of == bucket
            members.append((language, bucket, lengths[inside], keys[inside]))
    picks = allocate(config.size, [len(keys) for *_, keys in members])
    strata: list[Stratum] = []
    chosen: set[int] = set()
    for (language, bucket, lengths, keys), picked in zip(members, picks, strict=True):
        chosen.update(int(key) for key in np.sort(keys)[:picked])
        strata.append(
            Stratum(
                language=language,
                bucket=bucket,
                unit=length_unit(language),
                shortest=int(lengths.min()),
                longest=int(lengths.max()),
                dialogues=len(keys),
                picked=picked,
            )
        )
    return strata, chosen


def _copies(source: RunStore, dialogue_ids: Sequence[str], sample: set[str]) -> list[StoredRecord]:
    """The dialogues with their judgments and annotations (of a pair: when both are picked)."""
    copies: list[StoredRecord] = []
    for dialogue_id in dialogue_ids:
        copies += source.records(Dialogue, id=dialogue_id)
        for record_type in (Judgment, Annotation):
            copies += (
                record
                for record in source.records(record_type, dialogue_id=dialogue_id)
                if isinstance(record, Judgment | Annotation)
                and (record.target.other_dialogue_id or dialogue_id) in sample
            )
    return copies


def sample_run(
    source_dir: Path,
    destination_dir: Path,
    config: SampleConfig,
    progress: StepProgress | None = None,
) -> SampleResult:
    """Pick a stratified sample of the source's dialogues and copy it into the destination, as a
    `sample` run whose config holds the settings and every stratum (the weights that carry a
    figure on the sample back to the source)."""
    if source_dir.resolve() == destination_dir.resolve():
        raise DialbenchError("the sample needs a run of its own: give another destination")
    with RunStore.open(source_dir, create=False) as source:
        if not source.count(Dialogue):
            raise DialbenchError(f"{source_dir}: no dialogues to sample from")
        strata, chosen = _choose(_measure(source, config.seed, progress), config)
        picked = sorted(i for i in source.ids(Dialogue) if _key(config.seed, i) in chosen)
        settings = {
            "source": str(source_dir),
            **config.model_dump(mode="json"),
            "strata": [stratum.model_dump(mode="json") for stratum in strata],
        }
        counted = Counter[str]()
        sample = set(picked)
        with (
            RunStore.open(destination_dir) as destination,
            destination.invocation("sample", settings) as run,
        ):
            for start in range(0, len(picked), COPY_BATCH):
                copies = _copies(source, picked[start : start + COPY_BATCH], sample)
                destination.add(copies, run)
                counted.update(type(record).__name__ for record in copies)
                if progress is not None:
                    progress("copying", min(start + COPY_BATCH, len(picked)), len(picked))
    return SampleResult(
        run_id=run.id,
        strata=strata,
        dialogues=counted["Dialogue"],
        judgments=counted["Judgment"],
        annotations=counted["Annotation"],
    )
