"""Self-chat generation (BotChat Algorithm 1) through the real runner with scripted models: what
the model sees at each step, the history rule, resuming, zero calls on a re-run, bad input."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest

from dialbench.botchat.api import selfchat
from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.lengths import length_table, utterance_lengths
from dialbench.botchat.selfchat import fit_history, speaker_roles
from dialbench.botchat.tokens import cl100k_tokens
from dialbench.errors import DialbenchError
from dialbench.llm.base import ModelError, Request
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.botchat.helpers import echo_step, seed_dialogue, seeded_run
from tests.scripted_models import ScriptedModel
from tests.tool_dialogues import EN, TOOL_DIALOGUES, ZH


def stored(run: Path) -> list[Dialogue]:
    with RunStore.open(run) as store:
        return list(store.records(Dialogue, source="selfchat"))


def test_each_step_sees_the_system_prompt_the_history_and_the_last_utterance_as_user(
    tmp_path: Path,
) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1)])
    model = ScriptedModel("sc-steps", echo_step)
    summary = selfchat(SelfChatConfig(models=[model.config()], n=5), run, quiet=True)
    assert (summary.planned, summary.generated, summary.failures.count) == (1, 1, 0)
    [dialogue] = stored(run)
    assert [t.model for t in dialogue.turns] == [None, None] + [model.spec] * 3
    assert [t.role for t in dialogue.turns] == ["user", "assistant", "user", "assistant", "user"]
    assert dialogue.source == "selfchat"
    assert dialogue.end_reason == "turn_cap"
    assert dialogue.participants.user == dialogue.participants.assistant == model.spec
    assert dialogue.seed is not None
    assert dialogue.seed.chatseed == [
        "seed 1 utterance 0",
        "seed 1 utterance 1",
    ]
    assert dialogue.seed.metadata == {"dialogue_id": "mutual:MT-1"}
    assert dialogue.metadata["chatseed_dialogue"] == "mutual:MT-1"
    assert dialogue.metadata["dropped_utterances"] == [0, 0, 0]
    # step 3 writes u4, as speaker A, who also said u0 and u2 (its assistant turns); u3 is the
    # partner's last utterance (the user message)
    third = model.requests[2]
    assert [m.role for m in third.messages] == ["system", "assistant", "user", "assistant", "user"]
    assert third.messages[0].content.startswith("You are an AI who is having a conversation")
    assert [m.content for m in third.messages[1:]] == [t.text for t in dialogue.turns[:4]]
    first = model.requests[0]
    assert [m.role for m in first.messages] == ["system", "assistant", "user"]


def test_a_rerun_makes_no_call_and_a_failed_dialogue_resumes_without_asking_again(
    tmp_path: Path,
) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1), seed_dialogue(2)])
    failing = {"on": True}

    def flaky(request: Request) -> str:
        if failing["on"] and "seed 2" in request.messages[1].content and len(request.messages) > 4:
            raise ModelError("server went away")
        return echo_step(request)

    model = ScriptedModel("sc-flaky", flaky)
    config = SelfChatConfig(models=[model.config()], n=6)
    first = selfchat(config, run, quiet=True)
    assert (first.generated, first.failures.count) == (2, 1)
    broken = next(d for d in stored(run) if d.end_reason == "error")
    assert len(broken.turns) == 4
    assert "server went away" in str(broken.metadata["error"])
    asked = len(model.requests)
    failing["on"] = False
    second = selfchat(config, run, quiet=True)
    assert (second.already_stored, second.generated, second.failures.count) == (1, 1, 0)
    # only the utterances that were never answered are asked: the fifth and sixth of seed 2
    assert len(model.requests) - asked == 2
    assert {len(d.turns) for d in stored(run)} == {6}
    again = selfchat(config, run, quiet=True)
    assert (again.already_stored, again.generated) == (2, 0)
    assert len(model.requests) - asked == 2


def test_the_oldest_utterances_are_dropped_until_the_history_fits(tmp_path: Path) -> None:
    system = "system prompt"
    history = ["one two three four five " * 10, "short", "also short"]
    whole = sum(cl100k_tokens(t) + 8 for t in [system, "last", *history]) + 16
    assert fit_history(system, history, "last", 16, None) == 0
    assert fit_history(system, history, "last", 16, whole) == 0
    assert fit_history(system, history, "last", 16, whole - 1) == 1
    assert fit_history(system, history, "last", 16, 10) == 3  # never the last utterance
    run = seeded_run(tmp_path, [seed_dialogue(1)])
    replies = count()
    model = ScriptedModel("sc-window", lambda r: f"{next(replies)} " + "word " * 40)
    config = SelfChatConfig(models=[model.config()], n=7, context_tokens=400)
    selfchat(config, run, quiet=True)
    [dialogue] = stored(run)
    dropped = dialogue.metadata["dropped_utterances"]
    assert isinstance(dropped, list)
    assert dropped[0] == 0
    assert dropped[-1] > 0
    assert [t.metadata["dropped_utterances"] for t in dialogue.turns[2:]] == dropped
    assert [len(r.messages) - 2 for r in model.requests] == [
        i + 1 - d for i, d in enumerate(dropped)
    ]


def test_roles_alternate_backwards_from_the_model_own_last_utterance() -> None:
    assert speaker_roles(1) == ["assistant"]
    assert speaker_roles(4) == ["user", "assistant", "user", "assistant"]


def test_bad_input_is_a_clear_message_and_stores_nothing(tmp_path: Path) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1)])
    model = ScriptedModel("sc-bad", echo_step)
    with pytest.raises(DialbenchError, match=r"--n 1 is smaller than the ChatSEED"):
        selfchat(SelfChatConfig(models=[model.config()], n=1), run, quiet=True)
    with pytest.raises(DialbenchError, match=r"unknown backend 'nope'"):
        selfchat(SelfChatConfig.model_validate({"models": [{"spec": "nope:x"}]}), run, quiet=True)
    config = SelfChatConfig(models=[model.config()], min_seed_utterances=6)
    with pytest.raises(DialbenchError, match=r"no 'mutual' dialogues with at least 6"):
        selfchat(config, run, quiet=True)
    assert stored(run) == []
    assert model.requests == []


def test_lengths_count_generated_utterances_in_cl100k_tokens(tmp_path: Path) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1), seed_dialogue(2)])
    short = ScriptedModel("sc-short", lambda r: "Hello there, how are you?")  # 7 tokens
    long = ScriptedModel("sc-long", lambda r: "word " * 30)
    selfchat(SelfChatConfig(models=[short.config(), long.config()], n=4), run, quiet=True)
    lengths = utterance_lengths(stored(run))
    assert len(lengths) == 2 * 2 * 2  # seeds x models x generated utterances
    table = length_table(lengths).set_index("model")
    assert table.loc[short.spec, "mean"] == 7
    assert table.loc[long.spec, "utterances"] == 4
    assert table.index[0] == short.spec  # shortest first


def test_a_reply_over_the_models_cap_is_cut_and_its_turn_says_so(tmp_path: Path) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1)])
    model = ScriptedModel("sc-long", lambda request: "ab" * 1000)
    selfchat(SelfChatConfig(models=[model.config(max_reply_bytes=100)], n=3), run, quiet=True)
    [dialogue] = stored(run)
    assert dialogue.turns[2].text == "ab" * 50
    assert dialogue.turns[2].metadata == {"dropped_utterances": 0, "truncated_from_bytes": 2000}
    assert dialogue.metadata["dropped_utterances"] == [0]


def test_a_dialogue_with_tool_turns_seeds_with_its_first_two_utterances(tmp_path: Path) -> None:
    run = seeded_run(tmp_path, list(TOOL_DIALOGUES))
    model = ScriptedModel("sc-tools", echo_step)
    config = SelfChatConfig(models=[model.config()], n=3, seeds="production", min_seed_utterances=4)
    with pytest.raises(DialbenchError, match="at least 4 utterance"):
        selfchat(config, run, quiet=True)  # each has 3 utterances: tool turns are none
    selfchat(config.model_copy(update={"min_seed_utterances": 3}), run, quiet=True)
    seeds = {d.metadata["chatseed_dialogue"]: d.seed.chatseed for d in stored(run) if d.seed}
    assert seeds == {
        EN.id: ["What is the weather in Lisbon?", "Let me check."],
        ZH.id: ["北京今天天气怎么样？", "我查一下。"],
    }
