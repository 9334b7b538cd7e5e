"""What every pipeline stage is: its settings (the record), what it reads and writes, how to run
it, and how to estimate it for `--dry-run`."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

from pydantic import Field, PrivateAttr
from rich.console import Console

from dialbench.hashing import content_hash, file_sha256
from dialbench.schema import Record
from dialbench.sharding import Shard

# Typical sizes for estimates made before the text exists (`--dry-run`): tokens per utterance, and
# characters per token for text that does exist (prompt templates).
TOKENS_PER_UTTERANCE = 40
CHARS_PER_TOKEN = 4

# Record kinds stages read and write; the graph orders stages by them.
DIALOGUES, JUDGMENTS, ANNOTATIONS, BENCHMARKS, FILES = (
    "dialogues",
    "judgments",
    "annotations",
    "benchmarks",
    "files",
)


class ModelCalls(Record):
    """Estimated calls to one model, and the tokens they send and receive."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    concurrency: int = Field(default=1, ge=1)

    def __add__(self, other: ModelCalls) -> ModelCalls:
        return ModelCalls(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            concurrency=max(self.concurrency, other.concurrency),
        )


def text_tokens(text: str) -> int:
    """About how many tokens `text` is, from its length: enough for a plan."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


DialogueCounts = Counter[tuple[str, str]]
"""Dialogues per (source, language)."""


@dataclass
class PlanContext:
    """The run directory, and what the stages before this one leave in its store: the
    dialogues counted, and per kind of record the stages that will write it first (a plan
    cannot know their records before they run)."""

    run_dir: Path
    dialogues: DialogueCounts
    written_first: dict[str, list[str]] = field(default_factory=dict)

    def languages(
        self, sources: set[str] | None = None, languages: set[str] | None = None
    ) -> Counter[str]:
        """Dialogues per language, of these sources and languages (default: all)."""
        counts: Counter[str] = Counter()
        for (source, language), n in self.dialogues.items():
            if (sources is None or source in sources) and (
                languages is None or language in languages
            ):
                counts[language] += n
        return counts


def first_of(counts: Counter[str], total: int) -> Counter[str]:
    """`total` of the counted items, each key's share as large as in `counts` (the first K of a
    list whose order the plan does not know): whole shares first, then one more each to the
    largest remainders, so three seeds over eight languages are still three."""
    whole = sum(counts.values())
    if whole <= total:
        return Counter(counts)
    exact = {key: n * total / whole for key, n in counts.items()}
    taken = Counter({key: int(share) for key, share in exact.items()})
    by_remainder = sorted(exact, key=lambda key: (taken[key] - exact[key], key))
    for key in by_remainder[: total - sum(taken.values())]:
        taken[key] += 1
    return +taken


class StageEstimate(Record):
    """A stage's share of a dry run: calls per model spec, dialogues it adds per source and
    language, and, for a stage whose chatbots grow dialogues from shared seeds, the seeds per
    language a difference between them is tested over."""

    calls: dict[str, ModelCalls] = Field(default_factory=dict)
    adds_dialogues: dict[tuple[str, str], int] = Field(default_factory=dict)
    seeds: dict[str, int] = Field(default_factory=dict)
    dialogues_per_seed: int = Field(default=1, ge=1, description="per chatbot")
    note: str = ""


C = TypeVar("C", bound=Record)


@dataclass(frozen=True)
class StageResult:
    """What a stage did: one line for the log, the stage function's own typed result, and what
    of its work failed (None: nothing), which a run again retries: a stage with failed work is
    done with failures, not done."""

    summary: str
    result: Record | None = None
    failed: str | None = None


class Stage(Record):
    """One entry of a pipeline. A subclass inherits the config record of the stage function it
    calls, so a pipeline file takes exactly the settings that function takes."""

    stage: str
    # Fields that change how fast a stage runs, never what it produces.
    pace_fields: ClassVar[frozenset[str]] = frozenset()

    name: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="how the plan and --force call it; default the kind, numbered if repeated",
    )

    def reads(self) -> frozenset[str]:
        """The record kinds this stage's output depends on."""
        raise NotImplementedError

    def writes(self) -> frozenset[str]:
        raise NotImplementedError

    def config(self, config_type: type[C]) -> C:
        """The stage function's config: this record without the pipeline's own fields. Values
        are passed as they are, so model specs keep the credentials they were given."""
        return config_type(**{name: getattr(self, name) for name in config_type.model_fields})

    def input_files(self) -> list[Path]:
        """Files whose content is part of this stage's identity (data, not code)."""
        return []

    def code_hashes(self) -> dict[str, str]:
        """Prompt and data files shipped with dialbench that shape this stage's output."""
        return {}

    def store_hashes(self, run_dir: Path) -> dict[str, str]:
        """Records this stage reads from a run store that change outside the pipeline (labels
        added in the web app), as the hash of what it would make of them: none by default."""
        return {}

    def identity(self, upstream: list[str], stored: Mapping[str, str]) -> str:
        """The hash of what determines this stage's output, given its upstream identities and
        its `store_hashes` (a stage without them keeps the identity it had before them)."""
        settings = self.model_dump(mode="json", exclude={"stage", "name", *self.pace_fields})
        files = {str(path): file_sha256(path) for path in self.input_files() if path.is_file()}
        key = [self.stage, settings, files, self.code_hashes(), sorted(upstream)]
        return "s-" + content_hash([*key, dict(stored)] if stored else key)[:24]

    def resolve_paths(self, folder: Path) -> Stage:
        """This stage with relative input paths taken from the config file's folder."""
        return self

    def execute(self, run_dir: Path) -> StageResult:
        """Run the stage on the run directory, without progress bars on a terminal (stages run
        side by side; the pipeline prints one line for each as it settles), with plain progress
        lines in a log (`quiet_on_a_terminal`)."""
        raise NotImplementedError

    def estimate(self, context: PlanContext) -> StageEstimate:
        """The model calls this stage would make if nothing were stored yet."""
        return StageEstimate()

    def sharded(self, shard: Shard) -> Stage | None:
        """This stage doing only one shard of its work, or None when its work is whole-run
        (ratings, curation, reports): an executor that shards runs it once, after the merge."""
        return None


class ShardableStage(Stage):
    """A stage whose work splits by dialogue: `execute` passes `self.shard` to its function.
    The shard is not a setting: it changes neither the identity nor what the stages produce
    together."""

    _shard: Shard | None = PrivateAttr(default=None)

    @property
    def shard(self) -> Shard | None:
        return self._shard

    def sharded(self, shard: Shard) -> Stage:
        part = self.model_copy()
        part._shard = shard
        return part


def quiet_on_a_terminal() -> bool:
    """Stages run side by side: on a terminal their progress bars would draw over each other, so
    they show none (the pipeline prints a line as each settles); where stderr is a log, each
    stage's progress is a plain line every so often (`llm/progress.py`), which interleave fine."""
    return Console(stderr=True).is_terminal


def relative_to(folder: Path, path: Path | None) -> Path | None:
    return path if path is None or path.is_absolute() else folder / path
