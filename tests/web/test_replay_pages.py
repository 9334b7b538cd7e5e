"""A replay's pages (`dialbench serve`): its dialogue page names the recording it replays and
leads to their seed, where the recorded dialogue and the candidate's replay stand side by side,
each column labelled recorded or candidate and the turns that differ marked (a tool call both
made alike is shared, shown once)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from web_run import ORGANISER_TOKEN, Client, WebRun

from dialbench.schema import Judgment, Target
from dialbench.store import RunStore
from tests.replays import (
    CANDIDATE,
    EVERY,
    LAST,
    RECORDED_MODEL,
    RECORDED_SIDE,
    RECORDINGS,
    TOOL_LOG,
    TWO_REPLIES,
)

REPLAYED = '<strong class="replayed-mark">replayed</strong>'
REPLACED = '<strong class="replayed-mark">replaced</strong>'


@pytest.fixture
def organiser(client: Client, web_run: WebRun) -> TestClient:
    verdict = Judgment(
        protocol="replay",
        judge_model="judge-x",
        target=Target(dialogue_id=LAST.id, other_dialogue_id=TOOL_LOG.id),
        parse_status="ok",
        result={"choice": "Conversation 1", "winner": "first", "reason": "agrees with the tool"},
    )
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test setup") as run:
        store.add([*RECORDINGS, LAST, EVERY, RECORDED_SIDE], run)
        store.add([verdict], run)
    return client(ORGANISER_TOKEN)


def seed_page(organiser: TestClient, recorded_id: str) -> dict[str, str]:
    """The seed page of a recording, its columns by chatbot."""
    page = organiser.get(f"/seeds/{quote(f'dialogue:{recorded_id}', safe='')}")
    assert page.status_code == 200
    columns = page.text.split('<div class="seed-column"')[1:]
    return {column.split('data-chatbot="')[1].split('"')[0]: column for column in columns}


def test_a_replays_page_names_its_recording_and_leads_to_them_side_by_side(
    organiser: TestClient,
) -> None:
    page = organiser.get(f"/dialogues/{LAST.id}").text
    assert f'A replay of <a href="/dialogues/{TOOL_LOG.id}">{TOOL_LOG.id}</a> (mode last)' in page
    unit = quote(f"dialogue:{TOOL_LOG.id}", safe="")
    assert f'<a href="/seeds/{unit}">same seed: 2 other chatbot(s)</a>' in page
    assert 'id="replay-of"' not in organiser.get(f"/dialogues/{TOOL_LOG.id}").text


def test_the_columns_are_labelled_and_the_differing_turns_marked(organiser: TestClient) -> None:
    columns = seed_page(organiser, TOOL_LOG.id)
    assert list(columns) == [RECORDED_MODEL, CANDIDATE, "recorded"]  # by chatbot name
    recorded, candidate, recorded_side = columns.values()
    assert 'data-side="recorded"' in recorded
    assert '<span class="side">recorded</span>' in recorded
    assert 'data-side="candidate"' in candidate
    assert '<span class="side">candidate</span>' in candidate
    assert 'data-side="recorded"' in recorded_side
    # the call both made alike is shared; the replies differ and are marked
    assert candidate.count(REPLAYED) == 1
    assert "It is 21 °C and sunny" in candidate
    assert recorded.count(REPLACED) == 1
    assert "It is 12 °C and raining" in recorded
    assert "Thanks, I&#39;ll take an umbrella." in recorded  # after the reply: not marked
    assert recorded.count('class="turn assistant replayed"') == 1
    assert "winner <strong>first</strong>" in candidate  # the replay's verdict, in its column


def test_under_mode_every_each_side_is_marked_at_its_own_turns(organiser: TestClient) -> None:
    columns = seed_page(organiser, TWO_REPLIES.id)
    recorded, candidate = columns[RECORDED_MODEL], columns[CANDIDATE]
    assert candidate.count(REPLAYED) == 4  # two replies, the search and the call before one
    assert candidate.count('class="turn tool replayed"') == 2
    assert recorded.count(REPLACED) == 3  # two replies and the call before one
    assert "turn 5 · local:qwen2.5-0.5b-instruct · " + REPLAYED in candidate
