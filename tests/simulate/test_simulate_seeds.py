"""Seed contexts: loaders for the paper's file layouts, affect, gender, sampling, coverage."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from dialbench.errors import InputErrors
from dialbench.seeds import (
    LanguageTarget,
    affect_lexicon,
    coverage_table,
    detect_affect,
    is_gender_neutral,
    load_seed_texts,
    sample_contexts,
    starter_texts,
)


def write_jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_atomic10x_triplets_become_templated_sentences(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "atomic10x.jsonl",
        [
            {"head": "PersonX loses their keys", "relation": "xReact", "tail": "annoyed"},
            {"head": "PersonX bakes bread", "relation": "xWant", "tail": "to share it"},
        ],
    )
    texts = [t.text for t in load_seed_texts(path, "scene")]
    assert texts == [
        "PersonX loses their keys. PersonX feels annoyed.",
        "PersonX bakes bread. Now PersonX wants to share it.",
    ]


def test_soda_sentence_expansions_and_personahub_rows_load(tmp_path: Path) -> None:
    scenes = write_jsonl(
        tmp_path / "soda.jsonl",
        [{"head": "x", "relation": "xReact", "tail": "y", "literal": "Ana was nervous."}],
    )
    personas = write_jsonl(
        tmp_path / "persona.jsonl", [{"persona": "A beekeeper."}, {"input persona": "A pilot."}]
    )
    assert [t.text for t in load_seed_texts(scenes, "scene")] == ["Ana was nervous."]
    loaded = load_seed_texts(personas, "persona")
    assert [(t.text, t.line) for t in loaded] == [("A beekeeper.", 1), ("A pilot.", 2)]


def test_csv_and_plain_text_lists_load(tmp_path: Path) -> None:
    csv = tmp_path / "scenes.csv"
    csv.write_text("id,scene\n1,Someone lost a glove.\n2,Someone found a coin.\n", "utf-8")
    txt = tmp_path / "personas.txt"
    txt.write_text("A tailor.\n\nA poet.\n", "utf-8")
    assert [t.line for t in load_seed_texts(csv, "scene")] == [2, 3]
    assert [t.text for t in load_seed_texts(txt, "persona")] == ["A tailor.", "A poet."]


def test_a_row_without_text_is_reported_by_file_line_and_field(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"persona": "A cook."}, {"name": "no persona"}])
    with pytest.raises(InputErrors, match=r"p\.jsonl:2: field 'persona': needs persona"):
        load_seed_texts(path, "persona")


def test_the_starter_set_is_gender_neutral_and_loads() -> None:
    scenes, personas = starter_texts("scene"), starter_texts("persona")
    assert len(scenes) >= 20
    assert len(personas) >= 12
    assert all(is_gender_neutral(t.text) for t in [*scenes, *personas])


def test_affect_is_detected_as_a_whole_word() -> None:
    assert detect_affect("PersonX feels Annoyed after the call.") == "annoyed"
    assert detect_affect("PersonX madly runs to the station.") is None


def test_the_curated_affects_are_balanced_over_four_quadrants() -> None:
    sizes = {len(states) for states in affect_lexicon().quadrants.values()}
    assert len(affect_lexicon().quadrants) == 4
    assert len(sizes) == 1


@pytest.mark.parametrize(
    ("text", "neutral"),
    [
        ("Someone lost their keys.", True),
        ("PersonX calls his mother.", False),
        ("A waitress at a diner.", False),
        ("The heroic firefighter.", True),
    ],
)
def test_gender_rules(text: str, neutral: bool) -> None:
    assert is_gender_neutral(text) is neutral


def test_sampling_is_reproducible_balanced_and_crossed_with_languages() -> None:
    scenes, personas = starter_texts("scene"), starter_texts("persona")
    languages = [LanguageTarget(language=tag) for tag in ("en", "zh", "de", "fr", "pt", "es")]
    contexts = sample_contexts(scenes, personas, languages, 16, seed=3)
    assert contexts == sample_contexts(scenes, personas, languages, 16, seed=3)
    assert contexts != sample_contexts(scenes, personas, languages, 16, seed=4)
    assert Counter(c.language for c in contexts) == dict.fromkeys(
        ("en", "zh", "de", "fr", "pt", "es"), 16
    )
    english = [c for c in contexts if c.language == "en"]
    assert [c.scene for c in english] == [c.scene for c in contexts if c.language == "zh"]
    sampled = Counter(
        c.metadata["affect_quadrant"] for c in english if c.metadata["affect_origin"] == "sampled"
    )
    assert max(sampled.values()) - min(sampled.values()) <= 2
    assert Counter(c.gender for c in english) == {"female": 8, "male": 8}
    assert {c.culture for c in contexts} >= {"China", "Germany"}


def test_a_scene_with_an_affect_keeps_it_and_a_gendered_scene_gets_no_gender(
    tmp_path: Path,
) -> None:
    scenes = load_seed_texts(
        write_jsonl(tmp_path / "s.jsonl", [{"scene": "She is thrilled about the trip."}]), "scene"
    )
    personas = starter_texts("persona")
    [context] = sample_contexts(scenes, personas, [LanguageTarget(language="pt")], 1)
    assert context.affective_state == "thrilled"
    assert context.metadata["affect_origin"] == "scene"
    assert context.gender is None
    assert context.culture == "Brazil"


def test_coverage_rows_add_up_per_axis() -> None:
    contexts = sample_contexts(
        starter_texts("scene"), starter_texts("persona"), [LanguageTarget(language="en")], 8
    )
    rows = coverage_table(contexts)
    genders = [r for r in rows if r.axis == "gender"]
    assert sum(r.contexts for r in genders) == 8
    assert {r.value for r in rows if r.axis == "affect quadrant"} <= {
        *affect_lexicon().quadrants,
        "unclassified",
    }
