"""The review task through starlette's TestClient: which judge a server reviews, the reviewer's
list and pages, the reviews stored as annotations, the organiser's figures per language, and
`metaeval` reading the reviews as it reads any human label."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_run import ORGANISER_TOKEN, WebRun, make_web_run

from dialbench.errors import DialbenchError
from dialbench.hashing import sha256_text
from dialbench.schema import Annotation, Judgment, Target
from dialbench.store import RunStore
from dialbench.web.annotators import import_labels
from dialbench.web.app import create_app
from dialbench.web.auth import CSRF_HEADER
from dialbench.web.review_task import ReviewChoice
from tests.conftest import RunCli
from tests.judge.scripted import ISSUE_KEYS
from tests.web.test_app import csrf_of

ISSUES_X = ReviewChoice(protocol="issues", judge="judge-x")


def signed_in(app: FastAPI, token: str) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as browser:
        assert browser.get("/enter", params={"token": token}).status_code == 303
        yield browser


@pytest.fixture
def reviewing(web_run: WebRun) -> FastAPI:
    return create_app(web_run.path, sha256_text(ORGANISER_TOKEN), review=ISSUES_X)


@pytest.fixture
def alice(reviewing: FastAPI, web_run: WebRun) -> Iterator[TestClient]:
    yield from signed_in(reviewing, web_run.tokens["alice"])


def send(browser: TestClient, dialogue_id: str, body: dict[str, object]) -> httpx.Response:
    csrf = csrf_of(browser.get(f"/review/{dialogue_id}").text)
    return browser.put(f"/api/reviews/{dialogue_id}", json=body, headers={CSRF_HEADER: csrf})


def judgment_of(path: Path, dialogue_id: str, judge: str = "judge-x") -> Judgment:
    with RunStore.open(path, create=False) as store:
        (found,) = [
            j
            for j in store.records(Judgment, dialogue_id=dialogue_id)
            if j.judge_model == judge and j.protocol == "issues"
        ]
    return found


def every_verdict(judgment: Judgment, overall: object = "agree") -> dict[str, object]:
    """Agree with every issue but lacks_empathy (disagreed), and answer overall so."""
    answers: dict[str, object] = {f"issues.{key}": "agree" for key in ISSUE_KEYS}
    answers["issues.lacks_empathy"] = "disagree"
    return {"reviews": {judgment.id: {**answers, "overall": overall}}, "done": True}


def reviews(path: Path) -> list[Annotation]:
    with RunStore.open(path, create=False) as store:
        return [a for a in store.records(Annotation) if a.review_of]


def test_a_protocol_with_several_judges_and_none_named_fails_at_once_listing_them(
    web_run: WebRun, cli: RunCli
) -> None:
    with pytest.raises(DialbenchError, match=r"several issues judges in .*'judge-x', 'judge-y'"):
        create_app(web_run.path, "0" * 64, review=ReviewChoice(protocol="issues"))
    failed = cli("serve", web_run.path, "--review", "issues", ok=False)
    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr.splitlines() == [
        f"error: several issues judges in {web_run.path}: choose one with --review-judge: "
        "'judge-x', 'judge-y'"
    ]
    unknown = cli("serve", web_run.path, "--review", "submetrics", ok=False)
    assert "holds no submetrics judgments to review" in unknown.stderr
    assert "protocols judged: issues" in unknown.stderr


def test_a_reviewer_s_list_holds_their_benchmark_s_judged_dialogues(
    alice: TestClient, web_run: WebRun
) -> None:
    assert alice.get("/").headers["location"] == "/review"
    listing = alice.get("/review").text
    assert "Reviewing the verdicts of <strong>judge-x</strong> (issues)" in listing
    assert all(d in listing for d in web_run.ids("en") + web_run.ids("zh"))
    assert not any(d in listing for d in web_run.ids("pt"))
    assert 'href="/annotate' in listing  # labelling goes on beside the review
    first = web_run.ids("zh")[1]  # bot-b: lacks empathy, "dismisses the user"
    page = alice.get(f"/review/{first}").text
    assert 'data-dimension="issues.lacks_empathy"' in page
    assert "data-judge='true'" in page
    assert "dismisses the user" in page
    assert "Lacks Empathy" in page  # the title annotators read, from issue_labels.yaml


def test_reviews_are_stored_as_annotations_of_the_judge_s_dimensions(
    alice: TestClient, web_run: WebRun
) -> None:
    first = web_run.ids("en")[1]
    judgment = judgment_of(web_run.path, first)
    partial = send(alice, first, {"reviews": {judgment.id: {"overall": 5}}})
    assert partial.status_code == 200, partial.text
    assert partial.json()["started"] == 1
    (stored,) = reviews(web_run.path)
    assert (stored.labels, stored.complete, stored.review_of) == (
        {"overall": 5},
        False,
        judgment.id,
    )
    early = send(alice, first, {"reviews": {judgment.id: {"overall": 5}}, "done": True})
    assert early.status_code == 422
    assert "done needs every verdict answered: 8 not yet" in early.text
    done = send(alice, first, every_verdict(judgment, 5))
    assert done.json()["done"] == 1
    (stored,) = reviews(web_run.path)
    assert stored.complete
    assert stored.labels["overall"] == 5
    # bot-b's dialogue: the judge found it lacking empathy, the reviewer did not
    assert stored.labels["issues"] == dict.fromkeys(ISSUE_KEYS, False)
    page = alice.get(f"/review/{first}").text
    assert "data-action='\"disagree\"'" in page  # flipped: read back as disagreement
    assert "data-action='5'" in page
    # The review is no label of Alice's own: her annotation page of the dialogue is still blank.
    assert alice.get("/annotate").text.count("started, not done") == 0
    wrong = send(alice, first, {"reviews": {judgment.id: {"overall": "disagree"}}})
    assert wrong.status_code == 422
    assert "reviews." in wrong.text
    assert "only a yes/no verdict is disagreed with" in wrong.text


def test_dialogues_outside_the_reviewer_s_share_are_not_theirs(
    reviewing: FastAPI, web_run: WebRun
) -> None:
    for bob in signed_in(reviewing, web_run.tokens["bob"]):
        assert bob.get(f"/review/{web_run.ids('zh')[0]}").status_code == 404
    for carol in signed_in(reviewing, web_run.tokens["carol"]):
        listing = carol.get("/review").text  # her benchmark: the Portuguese dialogues
        assert all(d in listing for d in web_run.ids("pt"))
        assert not any(d in listing for d in web_run.ids("en"))


def test_the_organiser_sees_progress_and_agreement_per_language(
    reviewing: FastAPI, alice: TestClient, web_run: WebRun
) -> None:
    for dialogue in web_run.ids("en")[:2]:
        assert send(alice, dialogue, every_verdict(judgment_of(web_run.path, dialogue))).is_success
    for organiser in signed_in(reviewing, ORGANISER_TOKEN):
        page = organiser.get("/organiser").text
    assert "Review of judge-x (issues)" in page
    rows = page.split('<table id="review-languages">')[1].split("</table>")[0]
    # 8 of each English dialogue's 9 verdicts agreed with, lacks_empathy not: 16 of 18
    assert (
        "<tr><td>en</td><td>2</td><td>3</td><td>2</td><td>18</td><td>0.89</td><td>0.00</td>" in rows
    )
    assert "<tr><td>zh</td><td>0</td><td>2</td><td>0</td><td>0</td><td>-</td><td>-</td>" in rows
    assert "<tr><td>all</td><td>2</td>" in rows
    dimensions = page.split('<table id="review-dimensions">')[1].split("</table>")[0]
    assert "<tr><td>issues.lacks_empathy</td><td>en</td><td>2</td><td>0.00</td>" in dimensions
    progress = page.split('<table id="review-progress">')[1].split("</table>")[0]
    assert (
        "<tr><td>alice</td><td>bench</td><td>en, zh</td><td>2</td><td>0</td><td>5</td>" in progress
    )


def test_a_turn_protocol_s_scores_sit_beside_their_turn_and_an_unscored_one_has_no_verdict(
    tmp_path: Path,
) -> None:
    run = make_web_run(tmp_path / "run")
    scored, unscored = run.ids("en")[:2]
    judgments = [
        Judgment(
            protocol="submetrics",
            judge_model="judge-t",
            target=Target(dialogue_id=scored, turn_index=1),
            parse_status="ok",
            result={"understandability": 4, "sensibleness": 2.6},
        ),
        Judgment(
            protocol="submetrics",
            judge_model="judge-t",
            target=Target(dialogue_id=unscored, turn_index=1),
            parse_status="unscored",
            raw_output="no idea",
            error="unparseable",
        ),
    ]
    with RunStore.open(run.path, create=False) as store, store.invocation("test") as setup:
        store.add(judgments, setup)
    app = create_app(run.path, "0" * 64, review=ReviewChoice(protocol="submetrics"))
    for alice in signed_in(app, run.tokens["alice"]):
        page = alice.get(f"/review/{scored}").text
        row = page.split('<div class="review-row">')[2]  # turn 1, the chatbot's
        assert 'class="turn assistant"' in row
        assert 'data-dimension="understandability"' in row
        assert 'judge: <strong class="judge-value">2.6</strong>' in row
        assert 'data-dimension="sensibleness"' in row
        assert 'data-agreeable=""' in row  # 2.6 is an expected score: corrected, not agreed
        blank = alice.get(f"/review/{unscored}").text
        assert "Unscored: unparseable" in blank
        assert "no idea" in blank
        assert 'data-dimension="sensibleness"' in blank
        csrf = csrf_of(blank)
        answers = {"reviews": {judgments[1].id: {"understandability": 5, "sensibleness": "skip"}}}
        saved = alice.put(
            f"/api/reviews/{unscored}", json={**answers, "done": True}, headers={CSRF_HEADER: csrf}
        )
        assert saved.status_code == 200, saved.text
    (stored,) = reviews(run.path)
    assert stored.target == judgments[1].target
    assert stored.labels == {"understandability": 5, "sensibleness": None}
    exported = tmp_path / "reviews.jsonl"  # a skipped verdict travels, as null
    exported.write_text(stored.model_dump_json() + "\n", encoding="utf-8")
    with RunStore.open(run.path, create=False) as store:
        assert import_labels(store, exported) == 1
        assert store.get(Annotation, stored.id) == stored


def test_metaeval_reads_finished_reviews_as_human_labels(
    alice: TestClient, web_run: WebRun, cli: RunCli
) -> None:
    for n, dialogue in enumerate(web_run.ids("en") + web_run.ids("zh")):
        judgment = judgment_of(web_run.path, dialogue)
        assert send(alice, dialogue, every_verdict(judgment, 1 + n % 5)).is_success
    folder = web_run.path / "metaeval"
    done = cli("metaeval", web_run.path, "--protocol", "issues", "--bootstrap", "100", "-o", folder)
    assert "Correlation with the mean human score, overall" in done.stdout
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    (overall,) = [
        row
        for row in report["correlation"]
        if (row["rater"], row["dimension"], row["language"], row["method"])
        == ("judge-x", "overall", "all", "pearson")
    ]
    assert overall["n_items"] == 5  # the five dialogues Alice reviewed
    (empathy,) = [
        row
        for row in report["detection"]
        if (row["rater"], row["dimension"], row["language"])
        == ("judge-x", "issues.lacks_empathy", "all")
    ]
    # Alice disagreed on lacks_empathy everywhere: the judge's two flags (bot-b's dialogues) are
    # false alarms, and the three dialogues it found empathic lack empathy to her.
    assert (empathy["n_items"], empathy["predicted_positive"], empathy["reference_positive"]) == (
        5,
        2,
        3,
    )
    assert empathy["f1_positive"] == 0
