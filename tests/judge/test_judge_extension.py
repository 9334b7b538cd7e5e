"""The protocol extension points: options checked by each protocol's own schema, turn protocols
that judge every chatbot turn or only the last, and a pairwise protocol that is one class and
one registry entry; and the CLI's exit code when nothing usable came back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted import dialogue

from dialbench.errors import DialbenchError
from dialbench.judge import registry
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import select_dialogues
from dialbench.judge.registry import get_protocol
from dialbench.metaeval.diagnostics import position_consistency
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.conftest import Register, RunCli
from tests.extending.preference import PreferenceProtocol, chat
from tests.llm.loopback_server import Loopback, start_loopback
from tests.scripted_models import ScriptedModel


def test_a_pairwise_protocol_judges_both_orders_of_each_pair(
    tmp_path: Path, register: Register
) -> None:
    register(registry.PROTOCOLS, "preference", PreferenceProtocol)
    dialogues = [
        chat("picnic", "bot-a", "Bring a blanket."),
        chat("picnic", "bot-b", "I like turtles."),
        chat("picnic", "bot-c", "Bring a blanket."),  # the same turns as bot-a's: not compared
        chat("exam", "bot-a", "Sleep well."),  # no other chatbot met this seed
    ]
    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add(dialogues, run)

    first_shown = json.dumps({"winner": "first"})
    model = ScriptedModel("pairs", lambda request: first_shown, structured_output="json_object")
    config = JudgeConfig(protocol="preference", judges=[model.config()])
    summary = judge(config, tmp_path, quiet=True)
    with RunStore.open(tmp_path) as store:
        judged = list(store.records(Judgment))
    names = {d.id: d.participants.assistant for d in dialogues}
    pairs = {(names[j.target.dialogue_id], names[j.target.other_dialogue_id or ""]) for j in judged}
    assert pairs == {("bot-a", "bot-b"), ("bot-b", "bot-a"), ("bot-b", "bot-c"), ("bot-c", "bot-b")}
    assert summary.judges[0].ok == 4
    [consistency] = position_consistency(judged)
    assert consistency.consistent == 0  # "first" in both orders: pure position bias


def test_a_turn_protocol_judges_only_the_last_chatbot_turn_when_asked() -> None:
    every = get_protocol("submetrics").tasks([dialogue("hi", turns=5)])
    last = get_protocol("submetrics", options={"turns": "last"}).tasks([dialogue("hi", turns=5)])
    assert [t.target.turn_index for t in every] == [1, 3]
    assert [t.target.turn_index for t in last] == [3]


def test_an_unknown_or_invalid_option_names_the_protocol_and_its_options() -> None:
    with pytest.raises(DialbenchError, match=r"option fewshot: .*its options: few_shot"):
        get_protocol("holistic", options={"fewshot": "true"})
    with pytest.raises(DialbenchError, match=r"option turns: .*'all' or 'last'"):
        get_protocol("submetrics", options={"turns": "first"})


def import_one_exchange(cli: RunCli, run: Path, language: str, user: str, chatbot: str) -> None:
    """A run holding one user turn and one chatbot reply, imported through the CLI."""
    turns = [{"role": "user", "text": user}, {"role": "assistant", "text": chatbot}]
    path = run.parent / f"{language}.jsonl"
    path.write_text(json.dumps({"language": language, "turns": turns}) + "\n", encoding="utf-8")
    cli("import", path, "--run", run)


@pytest.fixture(scope="module")
def echoing_server() -> Iterator[Loopback]:
    server = start_loopback()
    yield server
    server.stop()


def test_options_on_the_command_line_and_no_usable_judgment_exits_non_zero(
    cli: RunCli, tmp_path: Path, echoing_server: Loopback
) -> None:
    import_one_exchange(cli, tmp_path / "run", "de", "Hallo", "Hi")
    done = cli(
        "judge",
        tmp_path / "run",
        "-p",
        "holistic",
        "--option",
        "few_shot=yes",
        "--quiet",
        "--judge",
        echoing_server.spec("echo"),
        ok=False,
    )
    # The loopback server echoes the question back: never valid JSON, so every judgment is
    # unscored after the re-asks; they stay stored, and the command says so and fails.
    assert done.returncode == 1
    *reasons, error = done.stderr.splitlines()
    assert reasons[0].startswith(f"{echoing_server.spec('echo')}: 1 of 1 judgments failed: 1 × ")
    assert error.startswith("error: every judgment is unscored (stored as such)")
    assert "unparseable after 3 answer(s)" in done.stderr
    assert "0 ok, 1 unscored" in done.stdout
    with RunStore.open(tmp_path / "run") as store:
        [judged] = store.records(Judgment)
    assert judged.parse_status == "unscored"
    assert judged.configuration is not None
    assert judged.configuration.options == {"few_shot": True}
    bad = cli("judge", tmp_path / "run", "-p", "holistic", "--option", "shots=3", ok=False)
    assert bad.returncode == 1
    assert "option shots: Extra inputs are not permitted" in bad.stderr


def test_the_limit_counts_only_dialogues_the_protocol_judges(tmp_path: Path) -> None:
    only_users = [dialogue(f"q{i}", turns=1) for i in range(3)]
    answered = [dialogue(f"a{i}", turns=2) for i in range(3)]
    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add([*only_users, *answered], run)
        chosen = select_dialogues(store, limit=2, protocol=get_protocol("submetrics"))
        assert [d.turns[0].text for d in chosen] == ["a0 (0)", "a1 (0)"]
    with RunStore.open(tmp_path / "users") as store, store.invocation("import") as run:
        store.add(only_users, run)
        with pytest.raises(
            DialbenchError, match=r"finds nothing to judge .*it judges chatbot turns"
        ):
            select_dialogues(store, protocol=get_protocol("submetrics"))


def test_a_judge_name_with_markup_is_printed_as_it_is(
    cli: RunCli, tmp_path: Path, echoing_server: Loopback
) -> None:
    import_one_exchange(cli, tmp_path / "run", "fr", "Salut", "Oui")
    name = "[bold red]x[/]"
    done = cli(
        "judge",
        tmp_path / "run",
        "-p",
        "holistic",
        "--quiet",
        "--judge",
        echoing_server.spec(name),
        ok=False,
    )
    assert "Traceback" not in done.stderr
    assert f"#{name} [c-" in done.stdout
