"""UniEval and Arena through the real judge stage with scripted judges: what is asked, how real
looking and malformed answers end (scored, re-asked, unscored: never guessed), pairing, the
outcome rule, pass@N, win matrices, order flips, ratings, and the BotChat sections of the run's
report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pytest

from dialbench.botchat import results
from dialbench.botchat.api import selfchat
from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.passrate import pass_at_n
from dialbench.botchat.results import (
    Ratings,
    arena_ratings,
    arena_verdicts,
    self_chats,
    win_tie_lose,
)
from dialbench.botchat.verdicts import order_consistency, win_matrix
from dialbench.figures import observations
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.registry import get_protocol
from dialbench.llm.base import Request
from dialbench.report.config import ReportConfig
from dialbench.report.writer import ReportResult, report
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.botchat.helpers import seed_dialogue, seeded_run
from tests.scripted_models import ScriptedModel

LONG = "As an AI language model, I would be happy to help you with a detailed answer."


def self_chat_run(path: Path, seeds: int = 2, n: int = 6) -> Path:
    run = seeded_run(path, [seed_dialogue(i) for i in range(seeds)])
    short = ScriptedModel("bot-short", lambda r: f"sure, {len(r.messages)}")
    long = ScriptedModel("bot-long", lambda r: f"{LONG} ({len(r.messages)})")
    selfchat(SelfChatConfig(models=[short.config(), long.config()], n=n), run, quiet=True)
    return run


def judgments(run: Path, protocol: str) -> list[Judgment]:
    with RunStore.open(run) as store:
        return list(store.records(Judgment, protocol=protocol))


def ratings(run: Path, rounds: int, resamples: int) -> Ratings:
    """The ratings as the report and `dialbench arena` compute them, with fewer draws."""
    with RunStore.open(run) as store:
        dialogues = self_chats(store)
        verdicts = arena_verdicts(store, dialogues)
    return arena_ratings(verdicts, dialogues, rounds=rounds, resamples=resamples)


def report_csv(written: ReportResult, name: str) -> pd.DataFrame:
    return pd.read_csv(written.folder / "tables" / f"{name}.csv")


def conversation(request: Request) -> str:
    return request.messages[-1].content


def unieval_judge(request: Request) -> str:
    """Flags the first chat that reads like an assistant; a human verdict otherwise."""
    chats = [c for c in conversation(request).split("\n") if c]
    for index, chat in enumerate(chats, start=1):
        if "AI language model" in chat:
            return json.dumps({"choice": "Yes", "index": index, "reason": "assistant-like"})
    return json.dumps({"choice": "No", "index": None, "reason": "casual and short"})


def test_unieval_asks_with_the_paper_prompt_and_numbers_chats_from_one(tmp_path: Path) -> None:
    run = self_chat_run(tmp_path)
    model = ScriptedModel("unieval-judge", unieval_judge)
    summary = judge(JudgeConfig(protocol="unieval", judges=[model.config()]), run, quiet=True)
    assert summary.judges[0].ok == 4  # self-chats only: 2 seeds x 2 models, not the seeds
    first = model.requests[0]
    assert first.messages[0].content.startswith("You are an AI assistant who helps human do")
    assert "[1 <= n <= 6]" in first.messages[0].content
    assert conversation(first).startswith("A: seed")
    assert conversation(first).split("\n")[1].startswith("B: ")
    assert conversation(first).endswith("<chat_end>")
    results = {j.result["first_ai_index"] for j in judgments(run, "unieval") if j.result}
    assert results == {None, 3}  # bot-long's first own utterance is the third chat
    with_examples = get_protocol("unieval", options={"examples": "true"})
    [task] = with_examples.tasks(
        [d for d in stored_self_chats(run) if d.participants.assistant == "scripted:bot-long"][:1]
    )
    assert [m.role for m in task.questions[0].messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


def stored_self_chats(run: Path) -> list[Dialogue]:
    with RunStore.open(run) as store:
        return list(store.records(Dialogue, source="selfchat"))


@pytest.mark.parametrize(
    ("answers", "status", "result"),
    [
        (['{"choice": "No", "index": null, "reason": "fine"}'], "ok", (False, None)),
        (['```json\n{"choice": "Yes", "index": 4, "reason": "long"}\n```'], "ok", (True, 4)),
        # the paper's own text format is not the JSON asked for: re-asked, then answered
        (
            [
                "Choice: Yes\nIndex: 4\nReason: too long",
                '{"choice": "Yes", "index": 4, "reason": "x"}',
            ],
            "ok",
            (True, 4),
        ),
        (['{"choice": "Yes", "index": null, "reason": "no index"}'] * 3, "unscored", None),
        (['{"choice": "No", "index": 2, "reason": "index with no"}'] * 3, "unscored", None),
        (['{"choice": "Yes", "index": 7, "reason": "out of range"}'] * 3, "unscored", None),
        (['{"choice": "Maybe", "index": null, "reason": "?"}'] * 3, "unscored", None),
        (["Choice: Yes Index: 3 Reason: BlahBlah"] * 3, "unscored", None),
    ],
)
def test_unieval_answers_are_scored_re_asked_or_left_unscored(
    tmp_path: Path, answers: list[str], status: str, result: tuple[bool, int | None] | None
) -> None:
    run = self_chat_run(tmp_path, seeds=1)
    asked: dict[str, int] = {}

    def script(request: Request) -> str:
        key = request.messages[1].content if len(request.messages) > 1 else ""
        turn = asked[key] = asked.get(key, -1) + 1
        return answers[min(turn, len(answers) - 1)]

    model = ScriptedModel(f"unieval-{len(answers)}-{status}-{answers[0][:12]}", script)
    judge(JudgeConfig(protocol="unieval", judges=[model.config()]), run, quiet=True)
    for judged in judgments(run, "unieval"):
        assert judged.parse_status == status
        if result is None:
            assert judged.result is None
            assert "unparseable after 3 answer(s)" in (judged.error or "")
        else:
            assert judged.result is not None
            assert (judged.result["ai_involved"], judged.result["first_ai_index"]) == result


def test_pass_at_n_counts_only_the_generated_part_and_long_enough_dialogues() -> None:
    verdicts = pd.DataFrame(
        [
            # judge, chatbot, ai_involved, first_ai_index, utterances, seed_utterances
            ("j", "bot", False, None, 16, 2),  # human: passes at every N
            ("j", "bot", True, 9, 16, 2),  # first AI chat 9: passes at 4 and 8, fails after
            ("j", "bot", True, 2, 16, 2),  # inside the ChatSEED: a judge error, never counted
            ("j", "bot", True, 5, 8, 2),  # 8 utterances: counted at 4 and 8 only
        ],
        columns=[
            "judge",
            "chatbot",
            "ai_involved",
            "first_ai_index",
            "utterances",
            "seed_utterances",
        ],
    )
    table = pass_at_n(verdicts).set_index("n")
    assert table["dialogues"].tolist() == [3, 3, 2, 2]
    assert table["passed"].tolist() == [3, 2, 1, 1]
    assert table["judge_errors"].tolist() == [1, 1, 1, 1]
    assert table.loc[8, "rate"] == pytest.approx(2 / 3)


def arena_judge(request: Request) -> str:
    """Flags whichever conversation has the assistant-like chat: bot-short always wins."""
    first, second = conversation(request).split("\n\nConversation 2:\n")
    flagged = [LONG in first, LONG in second]
    choice = {
        (True, False): "Conversation 1",
        (False, True): "Conversation 2",
        (True, True): "Both",
        (False, False): "Neither",
    }[(flagged[0], flagged[1])]
    return json.dumps({"choice": choice, "reason": "one reads like an assistant"})


def test_arena_pairs_self_chats_of_a_seed_in_both_orders_and_the_unflagged_one_wins(
    tmp_path: Path,
) -> None:
    run = self_chat_run(tmp_path, seeds=3)
    fair = ScriptedModel("arena-fair", arena_judge)
    biased = ScriptedModel(
        "arena-biased", lambda r: json.dumps({"choice": "Conversation 1", "reason": "first"})
    )
    config = JudgeConfig(protocol="arena", judges=[fair.config(), biased.config()])
    summary = judge(config, run, quiet=True)
    assert [t.ok for t in summary.judges] == [6, 6]  # 3 seeds x 1 pair x 2 orders
    prompt = fair.requests[0].messages[0].content
    assert prompt.startswith("You are an AI assistant who helps human do the Turing test")
    assert conversation(fair.requests[0]).startswith("Conversation 1:\nA: seed")
    dialogues = {d.id: d for d in stored_self_chats(run)}
    for j in judgments(run, "arena"):
        first = dialogues[j.target.dialogue_id]
        second = dialogues[j.target.other_dialogue_id or ""]
        assert first.metadata["chatseed_dialogue"] == second.metadata["chatseed_dialogue"]
        assert first.participants.assistant != second.participants.assistant
        assert j.result is not None
        if j.judge_model == fair.spec:
            short_first = first.participants.assistant == "scripted:bot-short"
            assert j.result["winner"] == ("first" if short_first else "second")
    rated = ratings(run, rounds=20, resamples=50).table
    by_model = rated.set_index(["judge", "model"])
    assert by_model.loc[(fair.spec, "scripted:bot-short"), "elo"] > 1000
    assert (
        by_model.loc[(fair.spec, "scripted:bot-short"), "bt"]
        > by_model.loc[(fair.spec, "scripted:bot-long"), "bt"]
    )
    # bot-long also writes longer utterances: the length covariate takes the win (β < 0)
    assert (rated.loc[rated["judge"] == fair.spec, "length_beta"] < 0).all()
    with RunStore.open(run) as store:
        verdicts = arena_verdicts(store, self_chats(store))
    consistency = order_consistency(verdicts).set_index("judge")
    assert consistency.loc[fair.spec, "flips"] == 0
    assert consistency.loc[biased.spec, "flip_rate"] == 1.0  # every verdict follows the order
    matrix = win_tie_lose(verdicts)
    fair_rows = matrix[(matrix["judge"] == fair.spec) & (matrix["model"] == "scripted:bot-short")]
    assert fair_rows[["n", "games", "wins", "ties", "losses"]].values.tolist() == [[6, 6, 6, 0, 0]]


def test_identical_self_chats_are_not_compared(tmp_path: Path) -> None:
    run = seeded_run(tmp_path, [seed_dialogue(1)])
    same = [ScriptedModel(f"twin-{i}", lambda r: "same words") for i in range(2)]
    selfchat(SelfChatConfig(models=[m.config() for m in same], n=4), run, quiet=True)
    assert list(get_protocol("arena").pairs(stored_self_chats(run))) == []


def test_win_matrix_and_kappa_on_a_hand_made_table() -> None:
    verdicts = pd.DataFrame(
        [
            ("j", "d1", "d2", "x", "y", "first", "s1", 4),
            ("j", "d2", "d1", "y", "x", "second", "s1", 4),  # consistent: x wins twice
            ("j", "d3", "d4", "x", "y", "tie", "s2", 4),
            ("j", "d4", "d3", "y", "x", "first", "s2", 4),  # flip: tie, then y wins
        ],
        columns=[
            "judge",
            "first",
            "second",
            "first_model",
            "second_model",
            "winner",
            "cluster",
            "n",
        ],
    )
    matrix = win_matrix(verdicts).set_index(["model", "opponent"])
    assert matrix.loc[("x", "y"), ["games", "wins", "ties", "losses"]].tolist() == [4, 2, 1, 1]
    assert matrix.loc[("y", "x"), "win_or_tie_rate"] == pytest.approx(0.5)
    [row] = order_consistency(verdicts).to_dict("records")
    assert (row["pairs"], row["flips"], row["flip_rate"]) == (2, 1, 0.5)
    # labels forward [first-id wins, tie], backward [first-id wins, second-id wins]:
    # p_o = 1/2, p_e = (1/2)(1/2) = 1/4, κ = (1/2 - 1/4) / (3/4) = 1/3
    assert row["kappa"] == pytest.approx(1 / 3)


def test_the_run_report_gains_the_botchat_sections(tmp_path: Path) -> None:
    run = self_chat_run(tmp_path, seeds=2)
    judges = {"unieval": ScriptedModel("report-unieval", unieval_judge)}
    judges["arena"] = ScriptedModel(
        "report-biased", lambda r: json.dumps({"choice": "Conversation 1", "reason": "first"})
    )
    for protocol, model in judges.items():
        judge(JudgeConfig(protocol=protocol, judges=[model.config()]), run, quiet=True)
    written = report(ReportConfig(), run)
    sections = {s.key: s for s in written.sections}
    rates = pd.read_csv(run / "report" / sections["unieval"].tables[0].csv).set_index("chatbot")
    assert rates.loc["scripted:bot-short", "human_rate"] == 1.0
    # 2 ChatSEEDs: an interval, and the note that 2 seeds are too few to trust it
    short = rates.loc["scripted:bot-short"]
    assert (short["human_rate_low"], short["human_rate_high"], short["seeds"]) == (1.0, 1.0, 2)
    assert short["note"] == "only 2 seeds: unreliable interval"
    assert rates.loc["scripted:bot-long", "judged_human"] == 0
    assert rates.loc["scripted:bot-long", "median_first_ai_index"] == 3
    verdicts, flips = (pd.read_csv(run / "report" / t.csv) for t in sections["arena"].tables)
    assert verdicts[["judgments", "Conversation 1"]].values.tolist() == [[4, 4]]
    assert flips[["n", "pairs", "flips", "flip_rate"]].values.tolist() == [[6, 2, 2, 1.0]]
    assert "did NOT flag wins" in sections["arena"].note
    rated = report_csv(written, "arena_ratings")
    assert (rated["bootstrap_draws"] == 1000).all()  # the paper's draws by default
    matrix = report_csv(written, "arena_win_tie_lose").set_index("model")
    assert matrix.loc["scripted:bot-short", ["n", "games", "wins", "losses"]].tolist() == [
        6,
        4,
        2,
        2,
    ]
    # the lengths once, with the first BotChat protocol judged (UniEval), before its rates
    keys = [s.key for s in written.sections]
    assert keys[:5] == ["selfchat-lengths", "unieval", "unieval-pass", "arena", "arena-ratings"]
    lengths = report_csv(written, "selfchat_lengths").set_index("model")
    assert lengths.loc["scripted:bot-short", "utterances"] == 2 * 4  # seeds x generated
    passes = report_csv(written, "unieval_pass").set_index(["chatbot", "n"])
    assert sorted(set(passes.index.get_level_values("n"))) == [4]  # N only up to the length 6
    assert passes.loc[("scripted:bot-short", 4), ["dialogues", "passed"]].tolist() == [2, 2]
    assert passes.loc[("scripted:bot-long", 4), ["dialogues", "passed"]].tolist() == [2, 0]
    plots = {p.name for p in (written.folder / "plots").glob("*.png")}
    assert {"selfchat_lengths_violin.png", "unieval_pass_scripted_report-unieval.png"} <= plots
    text = written.markdown.read_text(encoding="utf-8")
    assert "Generated utterances of finished self-chats only" in text
    assert "pass@N: the judge says the dialogue is not AI-involved" in text
    assert "shuffled 1,000 times" in text  # the paper's rounds by default
    assert "logit P(a beats b)" in text
    assert "Order-flip rate = inconsistent pairs" in text
    assert "win_rate = wins / games" in text
    assert text.count("## Self-chat utterance lengths") == 1
    assert "arena_winrate_scripted_report-biased_n6.png" in plots


def test_gteval_compares_each_self_chat_with_its_human_dialogue_at_the_same_length(
    tmp_path: Path,
) -> None:
    run = self_chat_run(tmp_path, seeds=2, n=6)  # the human dialogues hold 4 utterances
    model = ScriptedModel("gteval-judge", arena_judge)
    summary = judge(JudgeConfig(protocol="gteval", judges=[model.config()]), run, quiet=True)
    assert summary.judges[0].ok == 8  # 2 seeds x 2 models x 2 orders
    assert "Exactly one of the two conversations" in model.requests[0].messages[0].content
    for request in model.requests:
        first, second = conversation(request).split("\n\nConversation 2:\n")
        assert first.count("<chat_end>") == second.count("<chat_end>") == 4
    written = report(ReportConfig(), run)
    table = report_csv(written, "gteval").set_index("model")
    # the long bot's self-chat is flagged against the human one: it loses in both orders; the
    # short bot's reads as human as the human one does: Neither, a tie
    assert table.loc["scripted:bot-long", ["judgments", "losses"]].tolist() == [4, 4]
    assert table.loc["scripted:bot-short", ["judgments", "ties"]].tolist() == [4, 4]
    assert table.index[0] == "scripted:bot-short"  # sorted by win + tie rate
    long = table.loc["scripted:bot-long"]
    # never a win or a tie on 2 seeds: Clopper–Pearson's upper end over the seeds
    ends = (long["win_or_tie_rate_low"], long["win_or_tie_rate_high"], long["seeds"])
    assert ends == (0, pytest.approx(1 - 0.025 ** (1 / 2)), 2)
    text = written.markdown.read_text(encoding="utf-8")
    assert "The model wins when the judge flags the human conversation" in text
    assert "win_or_tie_rate = (wins + ties) / judgments" in text
    assert [s.key for s in written.sections][:2] == ["selfchat-lengths", "gteval"]
    assert (written.folder / "plots" / "gteval_scripted_gteval-judge.png").exists()


def test_a_report_reads_the_self_chats_and_computes_each_protocols_figures_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """UniEval's sections and pass@N, the GTEval table and figures, and the differences between
    chatbots all ask for them: read and computed once per report."""
    run = self_chat_run(tmp_path, seeds=2)
    for protocol, script in (("unieval", unieval_judge), ("gteval", arena_judge)):
        model = ScriptedModel(f"once-{protocol}", script)
        judge(JudgeConfig(protocol=protocol, judges=[model.config()]), run, quiet=True)
    calls = Counter[str]()

    def count(module: ModuleType, name: str) -> None:
        original = getattr(module, name)

        def counted(*args: Any) -> Any:
            calls[name] += 1
            return original(*args)

        monkeypatch.setattr(module, name, counted)

    count(results, "self_chats")
    for reader in ("mean_observations", "gteval"):  # UniEval's declared figures, GTEval's own
        count(observations, reader)
    written = report(ReportConfig(), run)
    keys = {section.key for section in written.sections}
    assert {"unieval", "unieval-pass", "gteval", "differences"} <= keys
    assert calls == {"self_chats": 1, "mean_observations": 1, "gteval": 1}


def test_a_model_whose_verdicts_are_all_unscored_gets_no_rating_and_a_note(tmp_path: Path) -> None:
    run = self_chat_run(tmp_path, seeds=2)
    mid = ScriptedModel("bot-mid", lambda r: f"MID {len(r.messages)}")
    selfchat(SelfChatConfig(models=[mid.config()], n=6), run, quiet=True)

    def script(request: Request) -> str:
        shown = request.messages[1].content  # the pair, also in a re-ask of it
        return "I cannot decide" if "MID" in shown else arena_judge(request)

    model = ScriptedModel("arena-mid-garbage", script)
    judge(JudgeConfig(protocol="arena", judges=[model.config()]), run, quiet=True)
    rated = ratings(run, rounds=5, resamples=5)
    assert rated.table.empty
    assert any("scripted:bot-mid never played a comparison" in n for n in rated.notes)
    written = report(ReportConfig(), run)
    assert "arena_ratings" not in {t.csv for s in written.sections for t in s.tables}
    assert "scripted:bot-mid never played" in written.markdown.read_text(encoding="utf-8")


def test_ratings_per_language_beside_the_overall_ranking(tmp_path: Path) -> None:
    seeds = [seed_dialogue(i, language="en" if i < 2 else "de") for i in range(4)]
    run = seeded_run(tmp_path, seeds)
    short = ScriptedModel("bot-short", lambda r: f"sure, {len(r.messages)}")
    long = ScriptedModel("bot-long", lambda r: f"{LONG} ({len(r.messages)})")
    selfchat(SelfChatConfig(models=[short.config(), long.config()], n=4), run, quiet=True)
    judge(
        JudgeConfig(protocol="arena", judges=[ScriptedModel("lang-judge", arena_judge).config()]),
        run,
        quiet=True,
    )
    rated = ratings(run, rounds=5, resamples=20).table
    assert sorted(rated["language"].unique()) == ["all", "de", "en"]
    for _, scope in rated.groupby("language"):
        ranked = scope.sort_values("bt", ascending=False)["model"].tolist()
        assert ranked == ["scripted:bot-short", "scripted:bot-long"]
    assert (
        rated.set_index(["language", "model"]).loc[("de", "scripted:bot-short"), "chatseeds"] == 2
    )


@pytest.mark.parametrize(("protocol", "per_seed"), [("gteval", 4), ("arena", 2)])
def test_limit_counts_judged_dialogues_for_pair_protocols_too(
    tmp_path: Path, protocol: str, per_seed: int
) -> None:
    """--limit 1 judges the pairs of the first judged dialogue, where it used to find nothing
    (the first stored dialogue, a human one, pairs with nothing among the first 1)."""
    run = self_chat_run(tmp_path, seeds=2, n=6)
    model = ScriptedModel(f"{protocol}-limit-judge", arena_judge)
    config = JudgeConfig(protocol=protocol, judges=[model.config()], limit=1)
    summary = judge(config, run, quiet=True)
    assert summary.judges[0].ok == per_seed  # one seed's: gteval 2 models x 2 orders
