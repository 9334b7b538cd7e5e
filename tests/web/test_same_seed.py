"""The dialogues of one seed side by side (`/seeds/UNIT`): reached from each dialogue's page and
from the dialogue list, the shared first turn shown once, each chatbot's turns and verdicts in a
column of its own; the organiser's alone, and dialogue text shown, never run."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from web_run import FIRST_TURN, ORGANISER_TOKEN, Client, WebRun, add_seed_dialogues

from dialbench.ratings import placed_judgments
from dialbench.schema import (
    Dialogue,
    JudgeConfiguration,
    Judgment,
    Participants,
    SeedContext,
    Target,
    Turn,
)
from dialbench.store import RunStore
from dialbench.web.browse import DialogueFilters, dialogue_list, dialogue_view
from dialbench.web.same_seed import seed_view


def unit_of(web_run: WebRun, dialogue: Dialogue) -> str:
    with RunStore.open(web_run.path, create=False) as store:
        return store.seed_units()[dialogue.id]


def seed_page(unit: str) -> str:
    return f"/seeds/{quote(unit, safe='')}"


@dataclass
class Seeded:
    """The web run with one seed's dialogues (bot-a's first) added, and that seed's page."""

    dialogues: list[Dialogue]
    unit: str

    @property
    def page(self) -> str:
        return seed_page(self.unit)


@pytest.fixture
def seeded(web_run: WebRun) -> Seeded:
    """With a holistic quality beside bot-a's issues verdict."""
    dialogues = add_seed_dialogues(web_run.path)
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test setup") as run:
        store.add([quality(dialogues[0], 3)], run)
    return Seeded(dialogues, unit_of(web_run, dialogues[0]))


def quality(
    dialogue: Dialogue, score: int, configuration: JudgeConfiguration | None = None
) -> Judgment:
    return Judgment(
        protocol="holistic",
        judge_model="judge-x",
        target=Target(dialogue_id=dialogue.id),
        configuration=configuration,
        parse_status="ok",
        result={"quality": score, "reason": "kind but short"},
        raw_output="{}",
    )


@pytest.fixture
def organiser(client: Client) -> TestClient:
    return client(ORGANISER_TOKEN)


def columns(page: str) -> list[str]:
    """The page's columns, each from its header to the next."""
    return page.split('<div class="seed-column"')[1:]


def test_a_dialogue_page_leads_to_its_seed_side_by_side(
    organiser: TestClient, web_run: WebRun, seeded: Seeded
) -> None:
    page = organiser.get(f"/dialogues/{seeded.dialogues[0].id}").text
    assert f'<a href="{seeded.page}">same seed: 2 other chatbot(s)</a>' in page
    assert 'id="same-seed"' not in organiser.get(f"/dialogues/{web_run.ids('en')[0]}").text

    side_by_side = organiser.get(seeded.page).text
    shared, apart = side_by_side.split('id="side-by-side"')
    assert FIRST_TURN in shared  # the shared first user turn, once, with its rejected attempt
    assert "1 rejected by the validator" in shared
    assert FIRST_TURN not in apart
    hostile_column, bot_a_column, bot_b_column = columns(side_by_side)  # by chatbot name
    assert 'data-chatbot="bot-a"' in bot_a_column
    assert "Ich bin für dich da." in bot_a_column
    assert "turn 3" in bot_a_column
    assert "quality <strong>3</strong>" in bot_a_column
    assert "overall <strong>4</strong>" in bot_a_column
    assert "Such dir einfach einen neuen." in bot_b_column
    assert "<strong>lacks_empathy</strong> (dismisses the user)" in bot_b_column
    assert "overall <strong>2</strong>" in bot_b_column
    assert bot_b_column.count('class="ended"') == 2  # bot-b stopped two turns before bot-a
    assert "Issues: none" in hostile_column


def self_chats_and_a_stray(web_run: WebRun) -> list[Dialogue]:
    """Two self-chats of one ChatSEED (a unit of their own) and a dialogue with the same seed
    context but no ChatSEED dialogue (a seed unit: it shares a field with them, not the unit)."""
    human = web_run.dialogues[0]
    seed = SeedContext(language="en", chatseed=["hi", "hello"], metadata={"dialogue_id": human.id})

    def grown(chatbot: str, metadata: dict[str, object]) -> Dialogue:
        turns = [Turn(role="user", text="hi"), Turn(role="assistant", text=f"{chatbot} says hello")]
        participants = Participants(user=chatbot, assistant=chatbot)
        return Dialogue(
            language="en",
            source="selfchat",
            seed=seed,
            participants=participants,
            turns=turns,
            metadata=metadata,
        )

    made = [grown(bot, {"chatseed_dialogue": human.id}) for bot in ("bot-a", "bot-b")]
    made.append(grown("bot-c", {}))
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test setup") as run:
        store.add(made, run)
    return made


def test_a_dialogues_seed_mates_are_those_of_its_unit_in_seed_units(
    web_run: WebRun, seeded: Seeded
) -> None:
    """Seedless dialogues (their own unit), a MEDAL seed's, a ChatSEED's self-chats and a
    dialogue sharing their seed context but not their unit: each reads as `seed_units` says."""
    stray = self_chats_and_a_stray(web_run)[-1]
    with RunStore.open(web_run.path, create=False) as store:
        units = store.seed_units()
        chatbots = {d: chatbot for d, (_, chatbot) in store.dialogue_placements().items()}
        for dialogue, unit in units.items():
            mates = {d: chatbots[d] for d, u in units.items() if u == unit}
            assert store.seed_mates(dialogue) == (unit, mates)
            assert store.seed_dialogues(unit) == list(mates)
        assert {unit.split(":")[0] for unit in units.values()} == {"dialogue", "seed", "chatseed"}
        assert units[stray.id].startswith("seed:")
        with pytest.raises(KeyError):
            store.seed_mates("d-unknown")
        grown = seeded.dialogues[0].id  # a seed's dialogue is not a unit of its own
        for unknown in ("seed:0123", f"chatseed:{grown}", f"dialogue:{grown}", "d-unknown"):
            assert store.seed_dialogues(unknown) == []


def test_dialogue_and_seed_pages_read_their_seed_not_every_unit_or_judgment(
    organiser: TestClient, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dialogue's page, a seed's page and the list of a seed cost that seed (and, but for the
    list, its judgments), not the whole store."""

    def whole_store(store: RunStore) -> dict[str, str]:
        raise AssertionError("a page computed the seed unit of every dialogue")

    every_record = RunStore.records_json

    def indexed(store: RunStore, record_type: type[Judgment], **where: str) -> Iterator[str]:
        assert record_type is not Judgment or where, "a page read every judgment"
        return every_record(store, record_type, **where)

    monkeypatch.setattr(RunStore, "seed_units", whole_store)
    listing = organiser.get("/dialogues", params={"seed": seeded.unit}).text
    assert "3 dialogue(s) match" in listing
    monkeypatch.setattr(RunStore, "records_json", indexed)
    page = organiser.get(f"/dialogues/{seeded.dialogues[0].id}").text
    assert f'<a href="{seeded.page}">same seed: 2 other chatbot(s)</a>' in page
    assert "kind but short" in page
    assert "quality <strong>3</strong>" in organiser.get(seeded.page).text


def test_pages_name_each_judge_as_the_list_and_the_report_do(
    web_run: WebRun, seeded: Seeded
) -> None:
    """A judge's name hangs on its judgments of other dialogues (another configuration, a
    calibration): a page that reads only its own dialogues' judgments names it all the same."""
    bot_a, bot_b = seeded.dialogues[:2]
    options = JudgeConfiguration(options={"turns": "all"})
    calibrated = options.model_copy(update={"calibration": "ab" * 32})
    with RunStore.open(web_run.path, create=False) as store:
        with store.invocation("test setup") as run:
            store.add(
                [quality(web_run.dialogues[0], 1, options), quality(bot_b, 2, calibrated)], run
            )
        everywhere = {j.id: p.rater for j, p in placed_judgments(store)}
        listed = dialogue_list(store, DialogueFilters()).choices.judge
        pages = [
            {j.id: judge for judge, j in dialogue_view(store, d.id).judgments}
            for d in (bot_a, bot_b)
        ]
        for chatbots in ([], ["bot-a"]):
            view = seed_view(store, seeded.unit, chatbots)
            assert view is not None
            pages.append({v.judgment.id: v.judge for c in view.columns for v in c.verdicts})
    for page in pages:
        assert page == {id_: everywhere[id_] for id_ in page}
        assert set(page.values()) <= set(listed)
    assert set(pages[0].values()) == {"judge-x", "judge-x [unrecorded]"}
    assert f"judge-x (calibrated) [{calibrated.fingerprint}]" in pages[1].values()


def test_chatbots_narrow_the_columns_to_a_pair_in_its_order(
    organiser: TestClient, seeded: Seeded
) -> None:
    pair = organiser.get(seeded.page, params={"chatbots": "bot-b,bot-a"}).text
    assert [c.split('"')[1] for c in columns(pair)] == ["bot-b", "bot-a"]
    assert f'<a href="{seeded.page}">show all</a>' in pair
    absent = organiser.get(seeded.page, params={"chatbots": "bot-a,bot-z"}).text
    assert len(columns(absent)) == 1
    assert "none from bot-z" in absent


def test_the_dialogue_list_filters_by_seed(organiser: TestClient, seeded: Seeded) -> None:
    listing = organiser.get("/dialogues", params={"seed": seeded.unit}).text
    assert "3 dialogue(s) match" in listing
    assert f'<input type="hidden" name="seed" value="{seeded.unit}">' in listing
    assert f'href="{seeded.page}"' in listing
    side_by_side = organiser.get(seeded.page).text
    assert f'href="/dialogues?seed={quote(seeded.unit, safe="")}"' in side_by_side


def test_the_seed_page_is_the_organisers_and_names_an_unknown_seed(
    client: Client, web_run: WebRun, seeded: Seeded
) -> None:
    assert client(None).get(seeded.page).status_code == 401
    assert client(web_run.tokens["alice"]).get(seeded.page).status_code == 403
    unknown = client(ORGANISER_TOKEN).get("/seeds/seed:0123")
    assert unknown.status_code == 404
    assert "no dialogue grew from seed seed:0123" in unknown.text


def test_hostile_text_on_the_seed_page_is_escaped(
    organiser: TestClient, web_run: WebRun, seeded: Seeded
) -> None:
    pages = [
        organiser.get(seeded.page).text,
        organiser.get(seed_page(unit_of(web_run, web_run.dialogues[-1]))).text,  # its own seed
        organiser.get("/dialogues", params={"seed": '"><script>alert(1)</script>'}).text,
        organiser.get("/seeds/<script>alert(1)</script>").text,
    ]
    for page in pages:
        assert "<script>" not in page
        assert "<img src=x" not in page
        assert 'href="javascript:' not in page
    assert 'data-chatbot="&lt;img src=x onerror=alert(1)&gt;"' in pages[0]
