"""`dialbench report` and the organiser's dialogue and seed pages on a large judged run, this
tree beside another version's in one run.

Builds a run of N dialogues (default 20,000): 70% MEDAL-shaped (seed contexts in en, de and zh,
four chatbots each, one issues judgment per dialogue), 30% BotChat-shaped (human dialogues and
two models' self-chats of each, a UniEval judgment per self-chat and GTEval's two orders).
Times `dialbench report RUN` from process start to exit, and, against `dialbench serve RUN`,
views of a MEDAL dialogue's page, a self-chat's page and a seed's page (the median of several,
after a first view); and, in this process, one dialogue's seed and its other dialogues found by
every dialogue's unit (`seed_units`, as a dialogue page did before) and by the seed's rows
alone (`seed_mates`), and a seed context's dialogues found from its unit (`seed_dialogues`, as
the seed page and the list's seed filter do). With `--baseline SRC` (the `src` folder of
another version, e.g. `git archive COMMIT src | tar -x -C /tmp/base`) the report and the pages
are timed under both, in turn (two servers side by side, asked in turn: a busy machine slows
both alike), with the ratio, and the two reports' tables are compared byte for byte.
Usage: .venv/bin/python benchmarks/report_and_seed_pages.py [--dialogues N] [--baseline SRC]
       [--reports 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

try:
    import httpx
    from serve_process import DIALBENCH, serve
except ModuleNotFoundError as missing:  # the client needs httpx, from the dev extra
    sys.exit(f"no module {missing.name}: run `make test` first, which sets up what this needs")

from _versions import compared_versions, environment, shown

from dialbench.issue_labels import load_issue_labels
from dialbench.schema import Dialogue, Judgment, Participants, SeedContext, Target, Turn
from dialbench.store import RunStore

CHATBOTS = [f"chatbot-{n}" for n in range(4)]
SELF_CHATTERS = ["bot-short", "bot-long"]
LANGUAGES = ("en", "de", "zh")
ISSUES = [label.key for label in load_issue_labels().selected(include_optional=False)]
VIEWS = 7


WORDS = ("well", "maybe", "today", "work", "tired", "sure")


def _text(rng: random.Random, words: int = 18) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _issues(dialogue: Dialogue, rng: random.Random) -> Judgment:
    flagged = {issue for issue in ISSUES if rng.random() < 0.1}
    return Judgment(
        protocol="issues",
        judge_model="judge-x",
        target=Target(dialogue_id=dialogue.id),
        parse_status="ok",
        result={
            "issues": {issue: issue in flagged for issue in ISSUES},
            "comments": dict.fromkeys(flagged, "turn 3"),
            "overall": rng.randint(1, 3) if flagged else rng.randint(3, 5),
        },
        raw_output="{}",
    )


def medal(count: int, rng: random.Random) -> tuple[list[Dialogue], list[Judgment]]:
    """Seed contexts with a dialogue of each chatbot, all from the seed's first user turn."""
    dialogues = []
    for n in range(count // len(CHATBOTS)):
        language = LANGUAGES[n % len(LANGUAGES)]
        seed = SeedContext(
            language=language, scene=f"scene {n}", persona=f"persona {n % 37}", culture="any"
        )
        first = Turn(role="user", text=f"seed {n}: {_text(rng)}", model="sim-u")
        for chatbot in CHATBOTS:
            turns = [first]
            for k in range(1, 8):
                turns.append(Turn(role=("user", "assistant")[k % 2], text=_text(rng)))
            dialogues.append(
                Dialogue(
                    language=language,
                    source="simulated",
                    seed=seed,
                    participants=Participants(user="sim-u", assistant=chatbot),
                    turns=turns,
                )
            )
    return dialogues, [_issues(d, rng) for d in dialogues]


def botchat(count: int, rng: random.Random) -> tuple[list[Dialogue], list[Judgment]]:
    """Human dialogues and each self-chatter's self-chat of them: UniEval on each self-chat,
    GTEval's two orders of each self-chat with its human dialogue."""
    dialogues, judgments = [], []
    for n in range(count // (1 + len(SELF_CHATTERS))):
        language = LANGUAGES[n % len(LANGUAGES)]
        human = Dialogue(
            language=language,
            source="dailydialog",
            turns=[Turn(role=("user", "assistant")[k % 2], text=_text(rng)) for k in range(8)],
        )
        dialogues.append(human)
        start = [turn.text for turn in human.turns[:2]]
        for chatter in SELF_CHATTERS:
            chat = Dialogue(
                language=language,
                source="selfchat",
                seed=SeedContext(
                    language=language, chatseed=start, metadata={"dialogue_id": human.id}
                ),
                participants=Participants(user=chatter, assistant=chatter),
                turns=[
                    *human.turns[:2],
                    *(
                        Turn(role=("user", "assistant")[k % 2], text=_text(rng), model=chatter)
                        for k in range(2, 8)
                    ),
                ],
                metadata={"chatseed_dialogue": human.id, "n": 8, "seed_utterances": 2},
            )
            dialogues.append(chat)
            involved = rng.random() < (0.3 if chatter == "bot-short" else 0.8)
            judgments.append(
                Judgment(
                    protocol="unieval",
                    judge_model="judge-u",
                    target=Target(dialogue_id=chat.id),
                    parse_status="ok",
                    result={"ai_involved": involved, "first_ai_index": 4 if involved else None},
                    raw_output="{}",
                )
            )
            for first, second in ((chat, human), (human, chat)):
                winner = rng.choice(("first", "second", "tie"))
                judgments.append(
                    Judgment(
                        protocol="gteval",
                        judge_model="judge-g",
                        target=Target(dialogue_id=first.id, other_dialogue_id=second.id),
                        parse_status="ok",
                        result={"choice": "Neither", "winner": winner, "reason": "-"},
                        raw_output="{}",
                    )
                )
    return dialogues, judgments


@dataclass(frozen=True)
class Made:
    run: Path
    medal_dialogue: str
    self_chat: str
    seed_unit: str


def make_run(run: Path, dialogues: int) -> Made:
    rng = random.Random(0)
    medal_part = medal(dialogues * 7 // 10, rng)
    botchat_part = botchat(dialogues - len(medal_part[0]), rng)
    with RunStore.open(run) as store, store.invocation("benchmark setup") as record:
        for records in (*medal_part, *botchat_part):
            for start in range(0, len(records), 2000):
                store.add(records[start : start + 2000], record)
        medal_dialogue = medal_part[0][len(medal_part[0]) // 2].id
        unit = store.seed_units()[medal_dialogue]
        stored = store.count(Dialogue)
    self_chat = next(d.id for d in botchat_part[0] if d.source == "selfchat")
    print(f"run: {stored:,} dialogues, {len(medal_part[1]) + len(botchat_part[1]):,} judgments")
    return Made(run, medal_dialogue, self_chat, unit)


def timed_reports(made: Made, versions: dict[str, Path], repeats: int) -> dict[str, list[float]]:
    """Seconds of each `dialbench report`, the versions in turn (a busy machine slows both
    alike), each writing to a folder of its own beside the run."""
    seconds: dict[str, list[float]] = {name: [] for name in versions}
    for _ in range(repeats):
        for name, source in versions.items():
            output = made.run.parent / name.replace(" ", "-")
            started = time.perf_counter()
            subprocess.run(
                [str(DIALBENCH), "report", str(made.run), "--output", str(output)],
                env=environment(source),
                check=True,
                capture_output=True,
            )
            seconds[name].append(time.perf_counter() - started)
    return seconds


def page_views(made: Made, versions: dict[str, Path]) -> dict[str, dict[str, list[float]]]:
    """Seconds of each page's views per version after a first view: the versions served side
    by side and asked in turn."""
    pages = {
        "MEDAL dialogue page": f"/dialogues/{made.medal_dialogue}",
        "self-chat page": f"/dialogues/{made.self_chat}",
        "seed page": f"/seeds/{quote(made.seed_unit, safe='')}",
    }
    with ExitStack() as servers:
        clients = {}
        for name, source in versions.items():
            serving = servers.enter_context(serve(made.run, env=environment(source)))
            client = servers.enter_context(httpx.Client(base_url=serving.base, timeout=300))
            client.get(serving.organiser_link)
            clients[name] = client
        found: dict[str, dict[str, list[float]]] = {}
        for page, path in pages.items():
            found[page] = {name: [] for name in versions}
            for client in clients.values():
                client.get(path).raise_for_status()
            for _ in range(VIEWS):
                for name, client in clients.items():
                    started = time.perf_counter()
                    client.get(path).raise_for_status()
                    found[page][name].append(time.perf_counter() - started)
    return found


def seed_reads(made: Made) -> tuple[float, float, float]:
    """In this process, seconds to find one dialogue's seed and its other dialogues: every
    dialogue's unit (`seed_units`, what a dialogue page computed before) and the seed's rows
    alone (`seed_mates`); and a seed's dialogues from its unit (`seed_dialogues`): the best of
    VIEWS each."""
    with RunStore.open(made.run, create=False) as store:
        whole, mates, of_unit = [], [], []
        for _ in range(VIEWS):
            started = time.perf_counter()
            store.seed_units()
            store.dialogue_placements()
            whole.append(time.perf_counter() - started)
            started = time.perf_counter()
            store.seed_mates(made.medal_dialogue)
            mates.append(time.perf_counter() - started)
            started = time.perf_counter()
            store.seed_dialogues(made.seed_unit)
            of_unit.append(time.perf_counter() - started)
    return min(whole), min(mates), min(of_unit)


def same_tables(first: Path, second: Path) -> bool:
    names = sorted(p.name for p in (first / "tables").glob("*.csv"))
    return names == sorted(p.name for p in (second / "tables").glob("*.csv")) and all(
        (first / "tables" / n).read_bytes() == (second / "tables" / n).read_bytes() for n in names
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=20_000)
    parser.add_argument("--baseline", type=Path, help="the src folder of another version")
    parser.add_argument("--reports", type=int, default=2, help="reports per version")
    arguments = parser.parse_args()
    compared = compared_versions(arguments.baseline)
    with tempfile.TemporaryDirectory() as scratch:
        made = make_run(Path(scratch) / "run", arguments.dialogues)
        reports = timed_reports(made, compared, arguments.reports)
        shown(
            f"`dialbench report RUN`, start to exit (best of {arguments.reports})",
            {name: min(seconds) for name, seconds in reports.items()},
        )
        for page, views in page_views(made, compared).items():
            shown(
                f"{page} (median of {VIEWS})", {n: statistics.median(v) for n, v in views.items()}
            )
        whole, mates, of_unit = seed_reads(made)
        print(
            f"one dialogue's seed, in this tree: every dialogue's unit {1000 * whole:.1f} ms, "
            f"the seed's rows {1000 * mates:.2f} ms (ratio {mates / whole:.4f}); "
            f"a seed context's dialogues from its unit {1000 * of_unit:.1f} ms"
        )
        if "baseline" in compared:
            same = same_tables(Path(scratch) / "baseline", Path(scratch) / "this-tree")
            print(f"report tables the same in both: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
