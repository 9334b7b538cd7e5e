"""Reviewers with no benchmark (`annotate add NAME --languages ...`): on a review server their
share is the judged dialogues of their languages, shared among them as a benchmark's dialogues
are among its annotators; on a labelling server they have nothing to label. The run holds the
bundled DBDC3 sample and a submetrics judge's verdicts on its chatbot turns, built here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest
from fastapi import FastAPI
from web_run import ORGANISER_TOKEN

from dialbench.examples import bundled
from dialbench.hashing import sha256_text
from dialbench.io.importer import ImportOptions, import_file
from dialbench.schema import Annotation, Dialogue, Judgment, Target
from dialbench.store import RunStore
from dialbench.web.annotators import AssignmentSettings, add_annotator
from dialbench.web.app import create_app
from dialbench.web.review_task import ReviewChoice
from tests.conftest import RunCli
from tests.web.test_review_app import send, signed_in

JUDGE = "judge-s"
SUBMETRICS = ReviewChoice(protocol="submetrics", judge=JUDGE)
REVIEWERS = {"emma": ["en"], "noah": ["en"], "kenji": ["ja"]}
LISTED = re.compile(r'href="/review/([^"]+)"')


@dataclass
class Dbdc3Run:
    path: Path
    judgments: dict[str, list[Judgment]]  # dialogue id -> the judge's verdicts on its turns
    languages: dict[str, str]  # dialogue id -> its language
    tokens: dict[str, str]  # reviewer -> their secret token

    def dialogues(self, language: str) -> set[str]:
        return {d for d, found in self.languages.items() if found == language}


@pytest.fixture
def dbdc3(tmp_path: Path) -> Dbdc3Run:
    """The sample's dialogues and breakdown labels; the judge's verdicts on the last two
    chatbot turns of each dialogue (sensibleness 1-5 running through them); three reviewers."""
    path = tmp_path / "dbdc"
    with RunStore.open(path) as store:
        for records in ("dialogues", "annotations"):
            import_file(store, bundled()["dbdc3_sample"], ImportOptions(records=records))
        dialogues = list(store.records(Dialogue))
        judgments: dict[str, list[Judgment]] = {}
        for n, dialogue in enumerate(dialogues):
            turns = [i for i, turn in enumerate(dialogue.turns) if turn.role == "assistant"]
            judgments[dialogue.id] = [
                Judgment(
                    protocol="submetrics",
                    judge_model=JUDGE,
                    target=Target(dialogue_id=dialogue.id, turn_index=turn),
                    parse_status="ok",
                    result={"understandability": 4, "sensibleness": 1 + (n + k) % 5},
                )
                for k, turn in enumerate(turns[-2:])
            ]
        with store.invocation("test") as run:
            store.add([j for found in judgments.values() for j in found], run)
        tokens = {
            name: add_annotator(store, name, None, languages).token
            for name, languages in REVIEWERS.items()
        }
    languages = {d.id: d.language for d in dialogues}
    return Dbdc3Run(path, judgments, languages, tokens)


def listed(app: FastAPI, token: str) -> set[str]:
    for reviewer in signed_in(app, token):
        assert reviewer.get("/").headers["location"] == "/review"
        page = reviewer.get("/review").text
        assert "on the dialogues it judged in your languages" in page
        assert 'href="/annotate' not in page  # no benchmark: nothing to label
    return {unquote(found) for found in LISTED.findall(page)}


def test_reviewers_share_the_judged_dialogues_of_their_languages(dbdc3: Dbdc3Run) -> None:
    organiser = sha256_text(ORGANISER_TOKEN)
    shared = create_app(dbdc3.path, organiser, AssignmentSettings(overlap=1), SUBMETRICS)
    emma, noah = (listed(shared, dbdc3.tokens[name]) for name in ("emma", "noah"))
    english = dbdc3.dialogues("en")
    assert emma
    assert noah
    assert not emma & noah
    assert emma | noah == english
    assert listed(shared, dbdc3.tokens["kenji"]) == dbdc3.dialogues("ja")
    everyone = create_app(dbdc3.path, organiser, review=SUBMETRICS)  # no overlap: each sees all
    assert listed(everyone, dbdc3.tokens["emma"]) == english
    for organiser_browser in signed_in(shared, ORGANISER_TOKEN):
        page = organiser_browser.get("/organiser").text
    assert "No annotators of a benchmark yet" in page  # reviewers label nothing
    progress = page.split('<table id="review-progress">')[1].split("</table>")[0]
    assert (
        f"<tr><td>kenji</td><td>-</td><td>ja</td><td>0</td><td>0</td><td>{len(dbdc3.dialogues('ja'))}</td>"
        in progress
    )


def test_a_turn_review_is_a_sensibleness_label_that_metaeval_reads(
    dbdc3: Dbdc3Run, cli: RunCli
) -> None:
    app = create_app(dbdc3.path, sha256_text(ORGANISER_TOKEN), review=SUBMETRICS)
    japanese = sorted(dbdc3.dialogues("ja"))
    reviewed = japanese[:4]
    for kenji in signed_in(app, dbdc3.tokens["kenji"]):
        for dialogue in reviewed:
            answers = {
                j.id: {"understandability": "agree", "sensibleness": 1 + (n + 2) % 5}
                for n, j in enumerate(dbdc3.judgments[dialogue])
            }
            saved = send(kenji, dialogue, {"reviews": answers, "done": True})
            assert saved.status_code == 200, saved.text
        assert saved.json()["done"] == len(reviewed)
    with RunStore.open(dbdc3.path, create=False) as store:
        reviews = {a.review_of: a for a in store.records(Annotation) if a.review_of}
    judgment = dbdc3.judgments[reviewed[0]][1]
    review = reviews[judgment.id]
    assert (review.annotator_id, review.target, review.complete) == ("kenji", judgment.target, True)
    assert review.labels == {"understandability": 4, "sensibleness": 4}
    folder = dbdc3.path / "metaeval"
    cli("metaeval", dbdc3.path, "--protocol", "submetrics", "--bootstrap", "100", "-o", folder)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    (sensibleness,) = [
        row
        for row in report["correlation"]
        if (row["rater"], row["dimension"], row["language"], row["method"])
        == (JUDGE, "sensibleness", "ja", "pearson")
    ]
    assert sensibleness["n_items"] == 2 * len(reviewed)  # Kenji's reviewed turns


def test_on_a_labelling_server_a_reviewer_has_nothing_to_label(
    dbdc3: Dbdc3Run, cli: RunCli
) -> None:
    app = create_app(dbdc3.path, sha256_text(ORGANISER_TOKEN))
    for kenji in signed_in(app, dbdc3.tokens["kenji"]):
        assert kenji.get("/").headers["location"] == "/annotate"
        page = kenji.get("/annotate").text
        assert "there is nothing for you to label" in page
        assert "No review is open on this server now" in page
        assert kenji.get(f"/annotate/{sorted(dbdc3.dialogues('ja'))[0]}").status_code == 404
    added = cli("annotate", "add", "lena", "--languages", "en,ja", "--run", dbdc3.path).stdout
    assert "annotator lena: reviews a judge's verdicts (serve --review), languages en, ja" in added
    listing = cli("annotate", "list", "--run", dbdc3.path).stdout
    assert re.search(r"lena\s+│\s+- \(reviewer\)\s+│\s+en, ja", listing), listing
