from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.analysis.text import mtld, tokens, utterance_length
from dialbench.cli import app
from dialbench.llm.runner import Runner
from dialbench.schema import Dialogue, Usage
from dialbench.store import RunStore
from tests.conftest import RunCli, piped
from tests.report.known_judgments import make_store
from tests.tool_dialogues import TOOL_DIALOGUES, without_tools


@pytest.mark.parametrize(
    ("text", "language", "length"),
    [
        ("Hello there, how are you?", "en", 5),
        ("Wie spät ist es in Tokio?", "de", 6),
        ("我下周要去成都。", "zh", 7),  # characters, punctuation not counted
        ("我下周要去成都。", "zh-Hans", 7),
        ("最近、朝起きる", "ja", 6),
        ("¿Qué puedo cocinar?", "es", 3),
    ],
)
def test_lengths_are_words_or_characters(text: str, language: str, length: int) -> None:
    assert utterance_length(text, language) == length


def test_chinese_tokens_come_from_jieba() -> None:
    assert tokens("我下周要去成都出差。", "zh") == ["我", "下周", "要", "去", "成都", "出差"]
    assert tokens("Bonjour, Paris!", "fr") == ["bonjour", "paris"]


def test_mtld_ranks_repetition_below_variety() -> None:
    varied = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "a",
        "lazy",
        "dog",
        "while",
        "seven",
        "happy",
        "children",
        "sing",
    ]
    assert mtld([]) is None
    assert mtld(["ok"] * 40) < mtld(varied * 3)  # type: ignore[operator]


def dialogue(language: str, turns: list[tuple[str, str, list[str]]], end: str) -> Dialogue:
    return Dialogue.model_validate(
        {
            "language": language,
            "end_reason": end,
            "turns": [
                {
                    "role": role,
                    "text": text,
                    "attempts": [{"text": text, "verdict": v, "feedback": None} for v in verdicts],
                }
                for role, text, verdicts in turns
            ],
        }
    )


def test_statistics_of_a_simulated_run(tmp_path: Path, cli: RunCli) -> None:
    """Turn 0: attempts rejected+accepted and accepted -> 2 turns, 3 attempts, 1 first try, 2/3.
    Turn 2: one accepted attempt. Usage of two runs adds up per role and model."""
    first = dialogue(
        "en",
        [
            ("user", "I lost my keys today.", ["rejected", "accepted"]),
            ("assistant", "Oh no, where did you last see them?", []),
            ("user", "At the gym, I think.", ["accepted"]),
        ],
        "natural_end",
    )
    second = dialogue(
        "zh",
        [
            ("user", "我丢了钥匙。", ["accepted"]),
            ("assistant", "别着急，你最后在哪里见到它们？", []),
        ],
        "turn_cap",
    )
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([first, second], run)
    for run_id in ("r1", "r2"):
        with Runner(tmp_path, run_id=run_id, quiet=True) as runner:
            runner.accounting.add_call(
                "user", "local:qwen2.5-0.5b", Usage(prompt_tokens=10, completion_tokens=5)
            )
            runner.accounting.add_call(
                "judge",
                "openai:gpt-4.1",
                Usage(prompt_tokens=100, completion_tokens=20, cost_usd=0.01),
            )
    with RunStore.open(tmp_path) as store:
        stats = dataset_statistics(store)
    languages = {row.language: row for row in stats.languages}
    assert set(languages) == {"all", "en", "zh"}
    assert languages["all"].dialogues == 2
    assert languages["all"].turns_per_dialogue == 2.5
    assert languages["en"].user_utterance_length == 5  # 5 words each
    assert languages["en"].assistant_utterance_length == 8
    assert languages["zh"].length_unit == "characters"
    assert languages["zh"].user_utterance_length == 5  # 我丢了钥匙
    assert languages["zh"].end_reasons == {"turn_cap": 1}
    en_turns = {a.turn_index: a for a in stats.acceptance if a.language == "en"}
    assert (en_turns[0].turns, en_turns[0].attempts, en_turns[0].accepted_first_try) == (1, 2, 0)
    assert en_turns[0].acceptance_rate == 0.5
    assert en_turns[2].acceptance_rate == 1.0
    usage = {(u.role, u.model): u for u in stats.usage}
    judge = usage[("judge", "openai:gpt-4.1")]
    assert (judge.calls, judge.usage.prompt_tokens) == (2, 200)
    assert judge.usage.cost_usd == pytest.approx(0.02)
    assert usage[("user", "local:qwen2.5-0.5b")].usage.cost_usd is None
    shown = json.loads(cli("stats", tmp_path, "--json").stdout)
    assert shown == {**json.loads(stats.model_dump_json()), "chatbot_figures": []}  # unjudged
    assert "Validator acceptance on user turns" in cli("stats", tmp_path).stdout


def test_a_judged_run_shows_every_chatbot_figure_with_its_interval_and_seeds(
    tmp_path: Path, cli: RunCli
) -> None:
    run = make_store(tmp_path / "run")
    shown = json.loads(cli("stats", run, "--json").stdout)["chatbot_figures"]
    figures = {(f["judge"], f["dimension"], f["chatbot"], f["language"]): f for f in shown}
    repetitive = figures[("judge-x", "issues.repetitive", "bot-b", "de")]
    assert (repetitive["value"], repetitive["low"], repetitive["high"]) == (1.0, 1.0, 1.0)
    assert (repetitive["seeds"], repetitive["items"]) == (4, 4)
    assert repetitive["note"] == "only 4 seeds: unreliable interval"
    assert figures[("judge-y", "quality", "bot-a", "all")]["seeds"] == 12
    assert {f["protocol"] for f in shown} == {"issues", "holistic", "submetrics"}
    text = cli("stats", run).stdout
    assert "Chatbot figures" in text
    assert "1.00 [1.00, 1.00]" in text
    lines = [line.split() for line in piped("stats", run, columns=None)]
    for f in shown:  # piped into a log: each figure on one line that says which it is
        named = [f["protocol"], f["judge"], f["dimension"], f["chatbot"], f["language"]]
        assert sum(line[:5] == named for line in lines) == 1, named
    assert json.loads(cli("stats", run, "--source", "elsewhere", "--json").stdout) == {
        "languages": [],
        "acceptance": [],
        "usage": [],
        "chatbot_figures": [],
    }


def test_an_empty_run_has_empty_statistics(tmp_path: Path, cli: RunCli) -> None:
    RunStore.open(tmp_path).close()
    assert "no dialogues" in cli("stats", tmp_path).stdout


def test_failed_turns_are_not_utterances_and_sources_can_be_chosen(tmp_path: Path) -> None:
    kept = dialogue("de", [("user", "Mein Zug fällt aus.", ["accepted"])], "natural_end")
    failed = dialogue("de", [("user", "", ["rejected", "rejected"])], "validation_failed")
    failed.turns[0].metadata["validation_failed"] = True
    excluded = dialogue("de", [("user", "How can I help you today?", ["accepted"])], "turn_cap")
    excluded = excluded.model_copy(update={"source": "medal-excluded"})
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add(
            [
                kept.model_copy(update={"source": "medal"}),
                failed.model_copy(update={"source": "medal"}),
                excluded,
            ],
            run,
        )
        everything = dataset_statistics(store)
        medal = dataset_statistics(store, source="medal")
    german = {r.language: r for r in medal.languages}["de"]
    assert german.dialogues == 2
    assert german.user_utterance_length == 4  # the failed turn's empty placeholder is not counted
    assert german.end_reasons == {"natural_end": 1, "validation_failed": 1}
    assert {r.language: r for r in everything.languages}["de"].dialogues == 3
    acceptance = {a.turn_index: a for a in medal.acceptance}
    assert (acceptance[0].turns, acceptance[0].attempts, acceptance[0].acceptance_rate) == (
        2,
        3,
        1 / 3,
    )


def test_tool_turns_are_counted_apart_from_the_utterances(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([*TOOL_DIALOGUES, *(without_tools(d) for d in TOOL_DIALOGUES)], run)
        stats = {row.language: row for row in dataset_statistics(store).languages}
    assert stats["all"].turns_per_dialogue == 3  # utterances only
    assert stats["all"].tool_turns_per_dialogue == 0.75  # 3 calls over 4 dialogues
    assert stats["en"].assistant_utterance_length == 5.5  # 3 and 8 words, no tool result
    assert stats["zh"].assistant_utterance_length == 9.5  # 我查一下 (4) and 15 characters
    done = CliRunner().invoke(app, ["stats", str(tmp_path)], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert "MTLD ┃ tool turns" in next(line for line in lines if "MTLD" in line)
    assert next(line for line in lines if line.startswith("│ all")).split()[-2] == "0.75"
