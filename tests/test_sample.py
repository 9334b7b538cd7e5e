"""`dialbench sample`: a seeded sample stratified by language and length, copied with the
judgments and annotations of its dialogues into a run of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench.analysis.sampling import SampleConfig, allocate, sample_run
from dialbench.errors import DialbenchError
from dialbench.schema import Annotation, Dialogue, Judgment, Target, Turn
from dialbench.store import RunStore
from tests.conftest import RunCli

# A question per language; Chinese and Japanese lengths are counted in characters.
QUESTIONS = {
    "en": "Could you recommend a good book for a long train journey?",
    "zh": "你能推荐一本适合长途火车旅行的好书吗？",
    "de": "Kannst du mir ein gutes Buch für eine lange Zugfahrt empfehlen?",
    "fr": "Peux-tu me conseiller un bon livre pour un long voyage en train ?",
    "pt": "Podes recomendar-me um bom livro para uma longa viagem de comboio?",
    "es": "¿Me recomiendas un buen libro para un viaje largo en tren?",
    "ja": "長い電車の旅におすすめの本はありますか？",
}
PER_LANGUAGE = 24


def dialogue(language: str, number: int) -> Dialogue:
    """Longer the larger the number: 1 to 4 exchanges."""
    turns = []
    for k in range(1 + number % 4):
        turns += [
            Turn(role="user", text=f"{QUESTIONS[language]} {number}.{k}"),
            Turn(role="assistant", text=f"{QUESTIONS[language][::-1]} {number}.{k}"),
        ]
    return Dialogue(language=language, source="log", turns=turns)


def scored(dialogue_id: str, other: str | None = None) -> Judgment:
    return Judgment(
        protocol="pairwise" if other else "metric:sensibleness",
        judge_model="m",
        target=Target(dialogue_id=dialogue_id, other_dialogue_id=other),
        parse_status="ok",
        result={"score": 0.5},
    )


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """Dialogues in seven languages, each scored by a metric and labelled; pairs of neighbours
    judged against each other."""
    run = tmp_path / "source"
    dialogues = [dialogue(lang, n) for lang in QUESTIONS for n in range(PER_LANGUAGE)]
    with RunStore.open(run) as store, store.invocation("import") as record:
        store.add(dialogues, record)
        store.add([scored(d.id) for d in dialogues], record)
        pairs = zip(dialogues[::2], dialogues[1::2], strict=True)
        store.add([scored(a.id, b.id) for a, b in pairs], record)
        labels = [
            Annotation(annotator_id="ana", target=Target(dialogue_id=d.id), labels={"ok": True})
            for d in dialogues
        ]
        store.add(labels, record)
    return run


def picked(run: Path) -> list[str]:
    with RunStore.open(run, create=False) as store:
        return sorted(d.id for d in store.records(Dialogue))


def test_the_sample_is_stratified_and_brings_its_records(
    cli: RunCli, source: Path, tmp_path: Path
) -> None:
    done = cli("sample", source, tmp_path / "sample", "--size", 30, "--seed", 0)
    with RunStore.open(tmp_path / "sample", create=False) as store:
        dialogues = list(store.records(Dialogue))
        ids = {d.id for d in dialogues}
        judgments = list(store.records(Judgment))
        annotations = list(store.records(Annotation))
        (run,) = store.invocations()
    assert len(dialogues) == 30
    # 7 languages x 4 lengths (1 to 4 exchanges): 28 strata, each with a pick, two with two.
    strata = run.config["strata"]
    assert isinstance(strata, list)
    assert len(strata) == 28
    assert sorted({d.language for d in dialogues}) == sorted(QUESTIONS)
    lengths = {(d.language, len(d.turns)) for d in dialogues}
    assert len(lengths) == 28
    assert (run.command, run.config["size"], run.config["seed"]) == ("sample", 30, 0)
    metric = [j for j in judgments if j.protocol == "metric:sensibleness"]
    assert {j.target.dialogue_id for j in metric} == ids
    pairs = {j.id for j in judgments if j.protocol == "pairwise"}
    with RunStore.open(source, create=False) as store:
        both_picked = {
            j.id
            for j in store.records(Judgment, protocol="pairwise")
            if {j.target.dialogue_id, j.target.other_dialogue_id} <= ids
        }
    assert pairs == both_picked
    assert {a.target.dialogue_id for a in annotations} == ids
    shown = " ".join(done.stdout.split())
    assert f"copied 30 dialogues, {len(judgments)} judgments and 30 annotations" in shown
    assert "characters" in shown


def test_the_same_seed_picks_the_same_sample(source: Path, tmp_path: Path) -> None:
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        sample_run(source, tmp_path / name, SampleConfig(size=10, seed=seed))
    assert picked(tmp_path / "a") == picked(tmp_path / "b") != picked(tmp_path / "c")
    again = sample_run(source, tmp_path / "a", SampleConfig(size=10, seed=0))
    assert again.dialogues == 10  # stored unchanged: sampling into the same run again is harmless
    assert len(picked(tmp_path / "a")) == 10


def test_a_sample_as_large_as_the_source_takes_all(source: Path, tmp_path: Path) -> None:
    result = sample_run(source, tmp_path / "all", SampleConfig(size=10_000))
    assert result.dialogues == len(QUESTIONS) * PER_LANGUAGE
    assert result.judgments == result.dialogues * 3 // 2
    with pytest.raises(DialbenchError, match="a run of its own"):
        sample_run(source, source, SampleConfig())


@pytest.mark.parametrize(
    ("size", "counts", "expected"),
    [
        (10, [50, 30, 20], [5, 3, 2]),
        (10, [900, 90, 9, 1], [6, 2, 1, 1]),  # one each first, the rest in proportion
        (2, [5, 4, 3], [1, 1, 0]),  # fewer picks than strata: the largest get them
        (100, [5, 4], [5, 4]),
    ],
)
def test_allocation_is_proportional_with_one_per_stratum(
    size: int, counts: list[int], expected: list[int]
) -> None:
    assert allocate(size, counts) == expected
