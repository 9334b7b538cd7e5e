"""`curate` as one typed call on a run directory, for the CLI, the pipeline and scripts: exclude
mixed-language dialogues, select a balanced benchmark per language from one issues judge's
verdicts, store it under its name, and write its files.

The Benchmark's id comes from its name: curating again with the same arguments over the same
judgments finds it stored unchanged; anything else under that name is refused, never
overwritten, and another name keeps both.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import Field

from dialbench.curate import export, summary
from dialbench.curate.candidates import JudgedDialogues, judged_dialogues
from dialbench.curate.config import CurateConfig
from dialbench.curate.exclusion import MixedLanguageKeywords, load_keywords, mixed_language_keyword
from dialbench.curate.selection import Candidate, select_balanced
from dialbench.errors import DialbenchError
from dialbench.issue_labels import load_issue_labels
from dialbench.judge.protocols.issues import IssuesProtocol
from dialbench.schema import (
    Benchmark,
    BenchmarkItem,
    Provenance,
    Record,
    base_language,
)
from dialbench.store import RunStore

MIXED_LANGUAGE = "mixed-language"
BENCHMARKS_FOLDER = "benchmarks"


class LanguageOutcome(Record):
    language: str
    dialogues: int
    left_out: dict[str, int] = Field(description="reason -> dialogues not curated from")
    candidates: int
    picked: int
    relaxed: dict[str, int] = Field(description="requirement -> picks that relaxed it")


class CurateResult(Record):
    benchmark: Benchmark
    stored: Literal["added", "unchanged"]
    folder: Path
    files: list[Path]
    languages: list[LanguageOutcome]
    notes: list[str]


def _issue_types(candidates: list[Candidate]) -> list[str]:
    """The label file's issues in its order (optional ones only when flagged), then any other
    issue a foreign judgment flags."""
    flagged = {issue for c in candidates for issue in c.issues}
    labels = load_issue_labels().issues
    known = [label.key for label in labels if not label.optional or label.key in flagged]
    return known + sorted(flagged - {label.key for label in labels})


def _without_mixed_language(
    candidates: list[Candidate], keywords: MixedLanguageKeywords
) -> tuple[list[Candidate], list[str]]:
    kept, excluded = [], []
    for candidate in candidates:
        if mixed_language_keyword(candidate, keywords) is None:
            kept.append(candidate)
        else:
            excluded.append(candidate.dialogue_id)
    return kept, excluded


def _outcomes(
    languages: dict[str, str],
    excluded: dict[str, list[str]],
    eligible: list[Candidate],
    bench: Benchmark,
) -> list[LanguageOutcome]:
    left_out: dict[str, Counter[str]] = defaultdict(Counter)
    for reason, ids in excluded.items():
        for dialogue_id in ids:
            left_out[languages[dialogue_id]][reason] += 1
    outcomes = []
    for language in sorted(set(languages.values())):
        items = [item for item in bench.items if item.language == language]
        outcomes.append(
            LanguageOutcome(
                language=language,
                dialogues=sum(1 for tag in languages.values() if tag == language),
                left_out=dict(sorted(left_out[language].items())),
                candidates=sum(1 for c in eligible if c.language == language),
                picked=len(items),
                relaxed=dict(sorted(Counter(r for item in items for r in item.relaxed).items())),
            )
        )
    return outcomes


def _store(store: RunStore, config: CurateConfig, benchmark: Benchmark) -> tuple[Benchmark, str]:
    """Stored under its name inside a `curate` run; a different one of that name is refused."""
    with store.invocation("curate", config.model_dump(mode="json")) as run:
        stored = store.get(Benchmark, benchmark.id)
        if stored is not None:
            same = stored.model_dump(exclude={"provenance"}) == benchmark.model_dump(
                exclude={"provenance"}
            )
            if not same:
                raise DialbenchError(
                    f"a benchmark {config.benchmark!r} already exists with other settings or "
                    "selections; choose another --name"
                )
            return stored, "unchanged"
        benchmark = benchmark.model_copy(
            update={
                "provenance": Provenance(
                    run_id=run.id,
                    config_hash=run.config_hash,
                    models={"judge": str(benchmark.settings["judge"])},
                )
            }
        )
        store.add([benchmark], run)
        return benchmark, "added"


def _select(
    eligible: list[Candidate], config: CurateConfig, issue_types: list[str], top_overall: int
) -> list[BenchmarkItem]:
    """Each language's picks, languages in order; each language's RNG is seeded apart, so
    adding a language leaves the others' picks as they were."""
    by_language: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in eligible:
        by_language[candidate.language].append(candidate)
    return [
        BenchmarkItem(
            dialogue_id=pick.dialogue_id,
            language=language,
            reason=pick.reason,
            relaxed=pick.relaxed,
        )
        for language in sorted(by_language)
        for pick in select_balanced(
            by_language[language],
            size=config.per_language,
            issue_types=issue_types,
            top_overall=top_overall,
            seed=f"{config.seed}:{language}",
        )
    ]


def curate(config: CurateConfig, run_dir: str | Path) -> CurateResult:
    """Curate the run directory's dialogues into the named benchmark; see the module's note."""
    keywords = load_keywords(config.keywords)
    overall_scale = load_issue_labels().overall.scale
    with RunStore.open(run_dir, create=False) as store:
        judged = judged_dialogues(store, config.judge, frozenset(config.languages))
        if not judged.dialogues:
            which = ", ".join(config.languages) or "any language"
            raise DialbenchError(f"{run_dir} holds no dialogues in {which} to curate from")
        eligible, mixed = _without_mixed_language(judged.candidates, keywords)
        if not eligible:
            counts = ", ".join(f"{len(ids)} {reason}" for reason, ids in judged.left_out.items())
            raise DialbenchError(
                f"no dialogue has a usable verdict of {judged.judge!r} to curate from "
                f"({counts or f'{len(mixed)} mixed-language'})"
            )
        issue_types = _issue_types(judged.candidates)
        items = _select(eligible, config, issue_types, max(overall_scale))
        excluded = {**judged.left_out, **({MIXED_LANGUAGE: sorted(mixed)} if mixed else {})}
        benchmark = Benchmark(
            name=config.benchmark,
            settings={
                "protocol": IssuesProtocol.name,
                "judge": judged.judge,
                "configuration": judged.configuration,
                "label": "sample 0",
                "per_language": config.per_language,
                "seed": config.seed,
                "languages": sorted(config.languages),
                "keywords_sha256": keywords.sha256,
                "issue_types": list(issue_types),
            },
            items=items,
            excluded={reason: sorted(ids) for reason, ids in sorted(excluded.items())},
        )
        benchmark, stored = _store(
            store, config.model_copy(update={"judge": judged.judge}), benchmark
        )
    languages = {dialogue_id: d.language for dialogue_id, d in judged.dialogues.items()}
    outcomes = _outcomes(languages, benchmark.excluded, eligible, benchmark)
    notes = [
        f"{tag}: no mixed-language keywords for this language, so none was excluded"
        for tag in sorted({c.language for c in judged.candidates})
        if base_language(tag) not in keywords.keywords
    ]
    notes += [
        f"{o.language}: {o.picked} of {config.per_language} picked (the candidates ran out)"
        for o in outcomes
        if o.picked < config.per_language
    ]
    folder = Path(run_dir) / BENCHMARKS_FOLDER / benchmark.name
    files = _write_files(folder, benchmark, judged, eligible, issue_types, overall_scale, outcomes)
    return CurateResult(
        benchmark=benchmark,
        stored=stored,
        folder=folder,
        files=files,
        languages=outcomes,
        notes=notes,
    )


def outcome_frame(outcomes: list[LanguageOutcome]) -> pd.DataFrame:
    """One row per language: the figures the terminal and summary.md both show."""
    return pd.DataFrame(
        [
            {
                "language": o.language,
                "dialogues": o.dialogues,
                "left out": ", ".join(f"{k} {n}" for k, n in o.left_out.items()) or "-",
                "candidates": o.candidates,
                "picked": o.picked,
                "relaxed": ", ".join(f"{k} {n}" for k, n in o.relaxed.items()) or "-",
            }
            for o in outcomes
        ]
    )


def _write_files(
    folder: Path,
    benchmark: Benchmark,
    judged: JudgedDialogues,
    eligible: list[Candidate],
    issue_types: list[str],
    scale: list[int],
    outcomes: list[LanguageOutcome],
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    by_id = {c.dialogue_id: c for c in judged.candidates}
    picked = [by_id[item.dialogue_id] for item in benchmark.items]
    jsonl = folder / "benchmark.jsonl"
    export.write_benchmark_jsonl(benchmark, judged.judge, by_id, judged.dialogues, jsonl)
    frame = summary.distribution(eligible, picked, issue_types, scale)
    files = [jsonl, summary.write_csv(frame, folder / "summary.csv")]
    facts = [
        f"{key}: {', '.join(map(str, value)) or 'all'}"
        if isinstance(value, list)
        else f"{key}: {value}"
        for key, value in benchmark.settings.items()
    ]
    if not frame.empty:
        files.append(summary.plot(frame, folder / "summary.png"))
    files.append(
        summary.write_markdown(
            folder / "summary.md",
            f"Benchmark {benchmark.name}",
            facts,
            outcome_frame(outcomes),
            frame,
            "summary.png",
        )
    )
    return files
