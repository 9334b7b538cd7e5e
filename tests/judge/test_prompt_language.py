"""Prompts in the dialogue's language (`judge --prompt-language dialogue`): every translation
keeps what its answers are parsed by, an item reads its dialogue's language where the protocol
has it and English elsewhere (said once), and at `en` nothing of any stored identity moves.
The Traditional Chinese files are the Simplified ones through OpenCC and a table of Taiwan's words
(scripts/convert_traditional_chinese.py)."""

from __future__ import annotations

import json
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from scripted import dialogue, issues_answer, scripted_judge

from dialbench.hashing import content_hash
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import judge_configuration
from dialbench.judge.prompt_language import SHARED_PROMPTS, PromptFiles, template_marks
from dialbench.judge.registry import PROTOCOLS, get_protocol
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.runner import Runner
from dialbench.metaeval.api import configuration_notes
from dialbench.pipeline.stages.judge import JudgeStage
from dialbench.prompts import load_prompt, translated_languages
from dialbench.schema import Judgment, Target
from dialbench.store import RunStore
from scripts.check_prompt_translations import translated_files, with_translations
from scripts.convert_traditional_chinese import (
    TAIWAN_TERMS,
    opencc_traditional,
    simplified_files,
    traditional,
    traditional_path,
)
from tests.conftest import RunCli

LANGUAGES = ("de", "es", "fr", "ja", "pt", "zh", "zh-Hant")
PACKAGES = {name: PROTOCOLS.load(name).__module__ for name in PROTOCOLS}
LABEL_FILES = ("issue_labels.yaml", "tool_issue_labels.yaml")
DIALOGUE = {"prompt_language": "dialogue"}


def english_prompts(package: str) -> list[str]:
    names = [f.name for f in resources.files(package).iterdir() if f.name.endswith(".txt")]
    return sorted(names) if package != SHARED_PROMPTS else ["judge_dialogue.txt", "judge_fence.txt"]


def translations() -> list[tuple[str, str, str]]:
    return [
        (package, language, name)
        for package in [SHARED_PROMPTS, *PACKAGES.values()]
        for language in translated_languages(package)
        for name in english_prompts(package)
    ]


def test_every_protocol_ships_every_language_whole() -> None:
    """A language folder holds every prompt file of its protocol (issues: and its labels), and
    the shared dialogue prompt is translated into every language a protocol ships."""
    for package in [SHARED_PROMPTS, *PACKAGES.values()]:
        assert translated_languages(package) == LANGUAGES, package
        expected = english_prompts(package)
        if package.endswith(".issues"):
            expected = sorted([*expected, *LABEL_FILES])
        for language in LANGUAGES:
            shipped = sorted(f.name for f in (resources.files(package) / language).iterdir())
            assert shipped == expected, (package, language)


@pytest.mark.parametrize(("package", "language", "name"), translations())
def test_a_translation_keeps_its_english_marks(package: str, language: str, name: str) -> None:
    """Placeholders, braces, JSON keys and literal answers: exactly the English file's."""
    folder = resources.files(package)
    english = (folder / name).read_text(encoding="utf-8")
    translated = (folder / language / name).read_text(encoding="utf-8")
    assert template_marks(translated) == template_marks(english)
    assert translated != english
    assert translated.endswith("\n")
    assert not translated.endswith("\n\n")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", LABEL_FILES)
def test_translated_labels_keep_the_keys_flags_and_scale(language: str, name: str) -> None:
    """The keys are the answer's schema and the dimensions metaeval pairs: never translated."""
    english = yaml.safe_load((resources.files("dialbench") / name).read_text(encoding="utf-8"))
    folder = resources.files(PACKAGES["issues"]) / language
    translated = yaml.safe_load((folder / name).read_text(encoding="utf-8"))

    def shape(labels: dict[str, Any]) -> list[Any]:
        issues = [(label["key"], label.get("optional", False)) for label in labels["issues"]]
        overall = labels.get("overall", {})
        return [issues, overall.get("key"), overall.get("scale")]

    assert shape(translated) == shape(english)
    pairs = [*zip(english["issues"], translated["issues"], strict=True)]
    if "overall" in english:
        pairs.append((english["overall"], translated["overall"]))
    for original, translation in pairs:
        assert translation["title"].strip()  # German's "Irrelevant" is English's
        assert translation["definition"].strip() != original["definition"]


def test_the_manifest_says_how_each_language_was_made_and_checked() -> None:
    manifest = yaml.safe_load(
        (resources.files("dialbench.judge.protocols") / "translations.yaml").read_text("utf-8")
    )
    assert "LLM assistant" in manifest["made"]
    assert "scripts/check_prompt_translations.py" in manifest["command"]
    assert sorted(manifest["languages"]) == sorted(LANGUAGES)
    for language, entry in manifest["languages"].items():
        checked = {f["file"]: f for f in entry["files"]}
        for name in ("judge_sensibleness.txt", "judge_issues.txt", "issue_labels.yaml"):
            protocol = "submetrics" if "sensibleness" in name else "issues"
            figures = checked[f"judge/protocols/{protocol}/{language}/{name}"]
            assert figures["marks"] == "same as English"
            assert 0 < figures["round_trip_chrf"] <= 100


def test_the_manifest_figures_are_of_the_files_as_shipped() -> None:
    """Every translated file has figures, computed on it and its English file as they are now:
    an edit to either without checking again fails here, naming the command."""
    manifest = yaml.safe_load(
        (resources.files("dialbench.judge.protocols") / "translations.yaml").read_text("utf-8")
    )
    recorded = {
        (language, f["file"]): (f.get("sha256"), f.get("english_sha256"))
        for language, entry in manifest["languages"].items()
        for f in entry["files"]
    }
    stale = [
        f"{f.path} ({f.language})"
        for f in translated_files(with_translations(), None)
        if recorded.get((f.language, f.path)) != (f.sha256, f.english_sha256)
    ]
    assert not stale, (
        "figures missing or computed on another version of: " + ", ".join(stale) + "; run "
        "scripts/check_prompt_translations.py --languages LANGUAGE --write"
    )


def system_prompts(protocol: str, language: str, **settings: Any) -> list[str]:
    """The system message of each question about a two-turn dialogue in `language`."""
    judged = get_protocol(
        protocol, JudgeSettings(**settings), {"include": "all"} if protocol == "unieval" else {}
    )
    tasks = judged.tasks([dialogue("hello", language, turns=2)])
    return [q.messages[0].content for task in tasks for q in task.questions]


def test_a_japanese_dialogue_is_asked_in_japanese_and_others_in_english() -> None:
    package = PACKAGES["submetrics"]
    japanese = load_prompt("judge_understandability", package, "ja").format()
    english = load_prompt("judge_understandability", package).format()
    assert system_prompts("submetrics", "ja", **DIALOGUE)[0] == japanese
    assert system_prompts("submetrics", "ja")[0] == english
    for language in ("en", "ko"):
        assert system_prompts("submetrics", language, **DIALOGUE) == system_prompts(
            "submetrics", language
        )
    assert system_prompts("submetrics", "pt-BR", **DIALOGUE) == system_prompts(
        "submetrics", "pt", **DIALOGUE
    )
    issues = system_prompts("issues", "ja", **DIALOGUE)[0]
    assert "有害な行動を促したり" in issues  # the Japanese definition of `unsafe`, under its key
    assert "- unsafe: " in issues
    for protocol in ("holistic", "unieval"):
        assert system_prompts(protocol, "de", **DIALOGUE) != system_prompts(protocol, "de")


def test_traditional_chinese_dialogues_are_asked_in_traditional_chinese() -> None:
    """By the script a tag names, else the one its region writes: Taiwan, Hong Kong and Macau
    read `zh-Hant`, mainland China, Singapore and a bare `zh` read `zh`."""
    package = PACKAGES["submetrics"]
    traditional_prompt = load_prompt("judge_sensibleness", package, "zh-Hant").format()
    simplified_prompt = load_prompt("judge_sensibleness", package, "zh").format()
    assert "評價" in traditional_prompt
    assert "评价" in simplified_prompt
    for tag in ("zh-Hant", "zh-TW", "zh-HK", "zh-MO", "zh-Hant-CN"):
        assert traditional_prompt in system_prompts("submetrics", tag, **DIALOGUE), tag
    for tag in ("zh", "zh-CN", "zh-SG", "zh-Hans", "zh-Hans-TW"):
        assert simplified_prompt in system_prompts("submetrics", tag, **DIALOGUE), tag
    files = PromptFiles(package, "dialogue")
    assert files.untranslated(["zh-TW", "zh-CN", "zh-Hant", "ko-KR"]) == ["ko"]
    assert files.hashes("judge_sensibleness")["judge_sensibleness.zh-Hant"]
    assert "judge_sensibleness.zh-Hant" not in PromptFiles(package).hashes("judge_sensibleness")


def test_a_protocol_without_traditional_chinese_asks_in_simplified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "simplified_only_prompts"
    (package / "zh").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "judge_it.txt").write_text("Judge it.\n")
    (package / "zh" / "judge_it.txt").write_text("评判它。\n")
    monkeypatch.syspath_prepend(tmp_path)
    files = PromptFiles("simplified_only_prompts", "dialogue")
    assert files.load("judge_it", "zh-TW").name == "judge_it.zh"
    assert files.untranslated(["zh-TW", "zh-HK"]) == []


def test_every_traditional_chinese_file_is_the_conversion_of_its_simplified_one() -> None:
    """So the two cannot drift: edit a `zh` file, then run the script."""
    converted = simplified_files()
    assert len(converted) == 14  # 12 prompts and 2 label files
    for simplified in converted:
        expected = traditional(simplified.read_text(encoding="utf-8"))
        assert traditional_path(simplified).read_text(encoding="utf-8") == expected, simplified


def test_the_traditional_chinese_files_use_taiwans_words_where_opencc_does_not() -> None:
    """Each of the script's terms is one s2twp leaves in these files (none is kept for nothing),
    and no `zh-Hant` file says it the mainland's way: 品質 for quality, 回覆 for a reply."""
    simplified = [file.read_text(encoding="utf-8") for file in simplified_files()]
    shipped = [traditional_path(file).read_text(encoding="utf-8") for file in simplified_files()]
    for term in TAIWAN_TERMS:
        assert any(term.mainland in opencc_traditional(text) for text in simplified), term
        assert not any(term.mainland in text for text in shipped), term
        assert any(term.taiwan in text for text in shipped), term
    holistic = load_prompt("judge_holistic", PACKAGES["holistic"], "zh-Hant").format()
    assert "評價 CHATBOT 回覆的品質" in holistic
    sensibleness = load_prompt("judge_sensibleness", PACKAGES["submetrics"], "zh-Hant").format()
    assert "評價該回覆的合理性" in sensibleness


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    with RunStore.open(tmp_path / "run") as store, store.invocation("import") as run:
        store.add([dialogue("well-formed", language) for language in ("en", "ja", "ko")], run)
    return tmp_path / "run"


def test_one_configuration_across_languages_and_a_note_for_english_instead(run_dir: Path) -> None:
    model = scripted_judge("issues-judge", {"well-formed": [issues_answer()]})
    config = JudgeConfig(
        protocol="issues", judges=[model.config()], settings=JudgeSettings(**DIALOGUE)
    )
    summary = judge(config, run_dir, quiet=True)
    assert summary.notes == ["issues has no prompts in ko: dialogues in it are asked in English"]
    systems = {
        request.messages[1].content.split("\n")[0]: request.messages[0].content
        for request in model.requests
    }
    assert "専門家" in systems["対話（言語: ja）:"]
    assert systems["Dialogue (language: ko):"] == systems["Dialogue (language: en):"]
    with RunStore.open(run_dir) as store:
        judged = list(store.records(Judgment))
    assert len(judged) == 3
    assert len({j.configuration.fingerprint for j in judged if j.configuration}) == 1
    configuration = judged[0].configuration
    assert configuration is not None
    assert configuration.prompt_language == "dialogue"
    for language in LANGUAGES:
        assert {
            f"judge_issues.{language}",
            f"judge_dialogue.{language}",
            f"issue_labels.{language}",
        } <= set(configuration.file_hashes)
    english = JudgeConfig(protocol="issues", judges=[model.config()])
    assert judge(english, run_dir, quiet=True).notes == []
    with RunStore.open(run_dir) as store:
        assert store.count(Judgment) == 6  # beside the others, under their own configuration


# Fingerprints and judgment ids computed before prompts could be translated: at `en` (the
# default) they must never move, nor what the judges are asked.
BEFORE = [
    ("submetrics", {}, "c-70008f115014", "j-44657268eb956ac86e417039"),
    ("submetrics", {"scoring": "expected"}, "c-ba5c48659d32", "j-492984aebf7720cc1005d2f0"),
    ("issues", {}, "c-fed724adfee7", "j-c854751bbd268cee4ff72e26"),
    (
        "issues",
        {"tool_results": True, "other": True},
        "c-d30e82b1a781",
        "j-5ae162712a04adde194543a6",
    ),
    ("holistic", {}, "c-502450814fc3", "j-49bc4b023641b07751e9ab3c"),
    ("holistic", {"few_shot": True}, "c-807e268739fe", "j-ed9105ec76c42224b568673f"),
    ("unieval", {}, "c-91ef11be5e52", "j-1548757da40477f37cec1e58"),
    ("unieval", {"examples": True}, "c-e30393e57fc0", "j-e39e85d33a30b5319e546302"),
    ("arena", {}, "c-98508f469b4c", "j-291e27a9e66d2c8fe20becfb"),
    ("gteval", {}, "c-aae8f0a77644", "j-3b008f6ecccc43c084f8461d"),
]
QUESTIONS_BEFORE = {
    "submetrics": "a4cd451511fa6f0f",
    "issues": "30fb51830086a1f1",
    "holistic": "4af8809ef061c8e8",
    "unieval": "4ceaea195b1e1dde",
}


def test_in_english_every_identity_is_as_before() -> None:
    with Runner() as runner:
        model = runner.model(scripted_judge("j", {}).config(), role="judge")
        for protocol, options, fingerprint, judgment_id in BEFORE:
            configuration = judge_configuration(
                get_protocol(protocol, JudgeSettings(), options), model
            )
            judgment = Judgment(
                protocol=protocol,
                judge_model=model.spec,
                target=Target(dialogue_id="d-1"),
                configuration=configuration,
                parse_status="unscored",
            )
            assert (configuration.fingerprint, judgment.id) == (fingerprint, judgment_id)
            localised = get_protocol(protocol, JudgeSettings(**DIALOGUE), options)
            assert judge_configuration(localised, model).fingerprint != fingerprint
    japanese = dialogue("こんにちは", "ja", 4)
    for protocol, expected in QUESTIONS_BEFORE.items():
        judged = get_protocol(protocol, None, {"include": "all"} if protocol == "unieval" else {})
        tasks = [task.model_dump(mode="json") for task in judged.tasks([japanese])]
        assert content_hash(tasks)[:16] == expected
    stage = JudgeConfig(protocol="submetrics").model_dump(mode="json")  # a run's config_hash:
    # moved once, by the rename of batch_size to store_every (no judgment's id moved with it)
    assert content_hash(stage) == "77ba074208cdfb97fcbafadc960c92da8d66d16adcfb0caba087348aa59553cc"


def test_the_pipeline_stage_asks_in_the_dialogue_language() -> None:
    stage = JudgeStage.model_validate(
        {"stage": "judge", "protocol": "submetrics", "settings": DIALOGUE}
    )
    assert "judge_sensibleness.ja" in stage.code_hashes()
    assert stage.build_protocol().prompt_files.language("ja-JP") == "ja"


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_local_judge_reads_a_japanese_dbdc3_dialogue_in_japanese(
    cli: RunCli, tmp_path: Path
) -> None:
    """Through the console script: the packaged Gemma rates the last chatbot turn of one
    Japanese DBDC3 dialogue, asked in Japanese, under a configuration that says so."""
    sample = cli("examples", "dbdc3_sample").stdout.strip()
    cli("import", sample, "--run", "runs/d")
    done = cli(
        "judge", "runs/d", "--protocol", "submetrics", "--option", "turns=last",
        "--prompt-language", "dialogue", "--language", "ja", "--limit", "1",
        "--judge", "local:gemma3-270m", "--quiet",
    )  # fmt: skip
    assert "note:" not in done.stdout
    with RunStore.open(tmp_path / "runs/d") as store:
        [judgment] = store.records(Judgment)
    assert judgment.parse_status == "ok", judgment.error
    assert judgment.configuration is not None
    assert judgment.configuration.prompt_language == "dialogue"
    with sqlite3.connect(tmp_path / "runs/d/dialbench.sqlite") as db:
        requests = [row[0] for row in db.execute("SELECT request FROM llm_cache")]
    instruction = load_prompt("judge_sensibleness", PACKAGES["submetrics"], "ja").format()
    assert len(requests) == 2
    assert any(json.dumps(instruction, ensure_ascii=False)[1:-1] in r for r in requests)


def test_metaeval_and_the_report_say_which_configuration_asked_in_the_dialogue_language(
    run_dir: Path,
) -> None:
    model = scripted_judge("issues-judge", {"well-formed": [issues_answer()]})
    for settings in (JudgeSettings(), JudgeSettings(**DIALOGUE)):
        judge(JudgeConfig(protocol="issues", judges=[model.config()], settings=settings), run_dir)
    with RunStore.open(run_dir) as store:
        notes = configuration_notes(list(store.records(Judgment)))
    assert len(notes) == 2
    assert sum("prompt_language dialogue" in note for note in notes) == 1
