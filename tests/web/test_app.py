"""The web app through starlette's TestClient: sessions, what each one may see and change,
escaping, CSRF, size limits and clear 4xx answers to bad labels."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from web_run import ORGANISER_TOKEN, Client, WebRun

from dialbench.hashing import sha256_text
from dialbench.io.long_format import long_rows
from dialbench.issue_labels import load_issue_labels
from dialbench.schema import Annotation, Benchmark, BenchmarkItem, Dialogue, ToolUse, Turn
from dialbench.store import RunStore
from dialbench.web.annotators import (
    AssignmentSettings,
    add_annotator,
    reissue_link,
    revoke_annotator,
)
from dialbench.web.app import create_app
from dialbench.web.auth import CSRF_HEADER
from dialbench.web.guard import MAX_BODY_BYTES
from tests.tool_dialogues import EN, TOOL_DIALOGUES, ZH

CSRF_META = '<meta name="csrf-token" content="'


def csrf_of(page: str) -> str:
    start = page.index(CSRF_META) + len(CSRF_META)
    return page[start : page.index('"', start)]


def save(
    browser: TestClient, dialogue_id: str, labels: dict[str, object], csrf: str | None = None
) -> httpx.Response:
    """PUT labels as the page does, with the CSRF token of the page itself unless given."""
    if csrf is None:
        csrf = csrf_of(browser.get(f"/annotate/{dialogue_id}").text)
    return browser.put(f"/api/labels/{dialogue_id}", json=labels, headers={CSRF_HEADER: csrf})


def stored(web_run: WebRun) -> list[Annotation]:
    with RunStore.open(web_run.path, create=False) as store:
        return list(store.records(Annotation))


@pytest.mark.parametrize(
    "path", ["/", "/organiser", "/dialogues", "/annotate", "/report/index.html"]
)
def test_no_page_without_a_token(client: Client, path: str) -> None:
    answer = client(None).get(path)
    assert answer.status_code == 401
    assert "open your secret link first" in answer.text


def test_a_wrong_token_opens_nothing(client: Client) -> None:
    browser = client(None)
    answer = browser.get("/enter", params={"token": "guess"})
    assert answer.status_code == 403
    assert "dialbench_session" not in answer.headers.get("set-cookie", "")
    assert browser.get("/organiser").status_code == 401


def test_the_link_sets_a_strict_httponly_cookie_and_drops_the_token_from_the_url(
    client: Client, web_run: WebRun
) -> None:
    answer = client(None).get("/enter", params={"token": web_run.tokens["alice"]})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=lax" in cookie  # a link followed from mail shows who is signed in


def test_the_token_is_never_logged(
    client: Client, web_run: WebRun, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="dialbench.web"):
        browser = client(web_run.tokens["alice"])
        browser.get("/annotate")
    assert any("GET /enter 303" in message for message in caplog.messages)
    assert web_run.tokens["alice"] not in caplog.text


def test_the_organiser_browses_and_annotators_cannot(client: Client, web_run: WebRun) -> None:
    organiser = client(ORGANISER_TOKEN)
    assert organiser.get("/").headers["location"] == "/organiser"
    listing = organiser.get("/dialogues", params={"language": "zh"})
    assert listing.status_code == 200
    assert all(d in listing.text for d in web_run.ids("zh"))
    assert not any(d in listing.text for d in web_run.ids("pt"))
    alice = client(web_run.tokens["alice"])
    assert alice.get("/").headers["location"] == "/annotate"
    for path in ("/organiser", "/dialogues", f"/dialogues/{web_run.ids('en')[0]}"):
        assert alice.get(path).status_code == 403


def test_filters_find_the_dialogues_behind_a_report_cell(client: Client, web_run: WebRun) -> None:
    organiser = client(ORGANISER_TOKEN)
    filters = {"judge": "judge-x", "chatbot": "bot-b", "language": "zh", "issue": "lacks_empathy"}
    page = organiser.get("/dialogues", params=filters).text
    bot_b_zh = [
        d.id
        for d in web_run.dialogues
        if d.language == "zh" and d.participants.assistant == "bot-b"
    ]
    assert "1 dialogue(s) match" in page
    assert bot_b_zh[0] in page
    assert (
        "0 dialogue(s) match"
        in organiser.get("/dialogues", params={**filters, "chatbot": "bot-a"}).text
    )
    assert "3 dialogue(s) match" in organiser.get("/dialogues", params={"overall": 2}).text
    assert organiser.get("/dialogues", params={"overall": 9}).status_code == 400


def test_the_dialogue_page_shows_attempts_judgments_and_raw_unscored_output(
    client: Client, web_run: WebRun
) -> None:
    page = client(ORGANISER_TOKEN).get(f"/dialogues/{web_run.ids('pt')[1]}").text
    assert "1 rejected by the validator" in page
    assert "sounds like an assistant, not a person" in page
    assert "dismisses the user" in page
    assert "&lt;b&gt;not json&lt;/b&gt;" in page  # judge-y's unscored raw output, escaped
    assert "Not annotated." in page


def test_a_tool_turn_shows_its_call_and_result_to_organiser_and_annotator_and_is_never_labelled(
    client: Client, web_run: WebRun
) -> None:
    long = Dialogue(
        language="en",
        turns=[
            Turn(role="user", text="Which trains go to Porto?"),
            Turn(role="tool", text="Alfa Pendular 08:39. " * 30, tool=ToolUse(name="timetable")),
            Turn(role="assistant", text="The first is at 08:39."),
        ],
    )
    shown = [*TOOL_DIALOGUES, long]
    items = [BenchmarkItem(dialogue_id=d.id, language=d.language, reason="t") for d in shown]
    with RunStore.open(web_run.path, create=False) as store:
        with store.invocation("tools") as run:
            store.add([*shown, Benchmark(name="tools", items=items)], run)
        token = add_annotator(store, "dora", "tools", ["en", "zh"]).token
    organiser, annotator = client(ORGANISER_TOKEN), client(token)
    for page in (
        organiser.get(f"/dialogues/{EN.id}").text,
        annotator.get(f"/annotate/{EN.id}").text,
    ):
        assert '<div class="turn tool" data-role="tool" data-kind="function">' in page
        assert "Tool call · turn 2 · call_1" in page
        assert '<strong>weather</strong>(<span class="arguments">{&#34;city&#34;: ' in page
        assert '<div class="text">21 °C, sunny</div>' in page
    annotating = annotator.get(f"/annotate/{ZH.id}").text
    assert "Retrieved context · turn 3" in annotating
    assert annotating.count('name="issue"') == len(load_issue_labels().issues)  # per dialogue
    folded = organiser.get(f"/dialogues/{long.id}").text
    assert '<details class="long">' in folded
    assert "show all 630 characters" in folded


def test_hostile_text_is_escaped_everywhere(client: Client, web_run: WebRun) -> None:
    hostile = web_run.dialogues[-1]
    pages = [
        client(ORGANISER_TOKEN).get(f"/dialogues/{hostile.id}").text,
        client(ORGANISER_TOKEN).get("/dialogues").text,
        client(web_run.tokens["bob"]).get(f"/annotate/{hostile.id}").text,
    ]
    for page in pages:
        assert "<script>window" not in page
        assert "<img src=x" not in page
        assert 'href="javascript:' not in page
    assert "&lt;script&gt;window.pwned = &#39;script&#39;&lt;/script&gt;" in pages[0]


def test_every_page_carries_a_strict_content_security_policy(client: Client) -> None:
    answer = client(ORGANISER_TOKEN).get("/organiser")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_labels_are_saved_resumed_and_counted(client: Client, web_run: WebRun) -> None:
    alice = client(web_run.tokens["alice"])
    first, second = web_run.ids("en")[:2]
    finished = {"issues": {"unsafe": True}, "overall": 2, "user_humanlike": 4, "done": True}
    answer = save(alice, first, finished)
    assert answer.status_code == 200, answer.text
    assert answer.json()["done"] == 1
    started = save(alice, second, {"issues": {}, "comment": "写得不错"}).json()
    assert (started["done"], started["started"]) == (1, 1)
    (one,) = [a for a in stored(web_run) if a.target.dialogue_id == first]
    assert one.annotator_id == "alice"
    assert one.labels["overall"] == 2
    assert one.labels["issues"]["unsafe"] is True  # type: ignore[index]
    assert one.labels["issues"]["lacks_empathy"] is False  # type: ignore[index]
    (partial,) = [a for a in stored(web_run) if a.target.dialogue_id == second]
    assert (partial.complete, partial.labels) == (False, {"issues": {}})  # only what was given
    with RunStore.open(web_run.path, create=False) as store:
        assert {row[0] for row in long_rows(store, "annotations", None)} == {first}  # CSV export
    resumed = alice.get("/annotate").text
    assert f'href="/annotate/{second}"' in resumed.split('id="resume"')[1].split(">")[0]
    again = save(alice, first, {"issues": {}, "overall": 5, "user_humanlike": 5, "done": True})
    assert again.status_code == 200
    assert [a.labels["overall"] for a in stored(web_run) if a.target.dialogue_id == first] == [5]
    assert 'value="5" checked' in alice.get(f"/annotate/{first}").text


def test_one_annotator_cannot_read_or_change_anothers_labels(
    client: Client, web_run: WebRun
) -> None:
    alice, bob = client(web_run.tokens["alice"]), client(web_run.tokens["bob"])
    shared = web_run.ids("en")[0]
    save(alice, shared, {"issues": {"unsafe": True}, "overall": 1, "comment": "alice's secret"})
    page = bob.get(f"/annotate/{shared}").text
    assert "alice&#39;s secret" not in page
    assert "alice's secret" not in page
    assert "checked" not in page
    save(bob, shared, {"issues": {}, "overall": 5})
    by_annotator = {a.annotator_id: a.labels["overall"] for a in stored(web_run)}
    assert by_annotator == {"alice": 1, "bob": 5}


def test_an_annotator_cannot_reach_another_benchmark_or_language(
    client: Client, web_run: WebRun
) -> None:
    bob, carol = client(web_run.tokens["bob"]), client(web_run.tokens["carol"])
    chinese, portuguese = web_run.ids("zh")[0], web_run.ids("pt")[0]
    assert bob.get(f"/annotate/{chinese}").status_code == 404  # bob labels English only
    assert chinese not in bob.get("/annotate").text
    csrf = csrf_of(bob.get("/annotate").text)
    assert save(bob, chinese, {"overall": 3}, csrf).status_code == 404
    english = web_run.ids("en")[0]
    assert carol.get(f"/annotate/{english}").status_code == 404  # carol labels "other"
    assert portuguese in carol.get("/annotate").text
    assert stored(web_run) == []


def test_writes_need_the_csrf_token_of_the_session(client: Client, web_run: WebRun) -> None:
    alice, bob = client(web_run.tokens["alice"]), client(web_run.tokens["bob"])
    english = web_run.ids("en")[0]
    assert save(alice, english, {"overall": 3}, csrf="").status_code == 403
    bobs = csrf_of(bob.get("/annotate").text)
    refused = save(alice, english, {"overall": 3}, csrf=bobs)
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert stored(web_run) == []


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"overall": 7}, "overall: Input should be less than or equal to 5"),
        ({"user_humanlike": 0}, "user_humanlike: Input should be greater than or equal to 1"),
        ({"issues": {"boring": True}}, "unknown issue 'boring'"),
        ({"issues": {"unsafe": "very"}}, "issues.unsafe: Input should be a valid boolean"),
        ({"overall": 3, "mood": "happy"}, "mood: Extra inputs are not permitted"),
    ],
)
def test_an_invalid_label_gets_a_clear_422(
    client: Client, web_run: WebRun, labels: dict[str, object], message: str
) -> None:
    answer = save(client(web_run.tokens["alice"]), web_run.ids("en")[0], labels)
    assert answer.status_code == 422
    assert message in answer.json()["detail"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"overall": true}', "overall: Input should be a valid integer"),
        ('{"overall": "3"}', "overall: Input should be a valid integer"),
        ('{"user_humanlike": 2.0}', "user_humanlike: Input should be a valid integer"),
        ('{"issues": {"unsafe": "yes"}}', "issues.unsafe: Input should be a valid boolean"),
        ('{"issues": {"unsafe": "on"}}', "issues.unsafe: Input should be a valid boolean"),
        ('{"issues": {"unsafe": 1}}', "issues.unsafe: Input should be a valid boolean"),
        ('{"comment": 5}', "comment: Input should be a valid string"),
        ('{"overall": 2, "overall": 3}', "overall: the key appears more than once"),
        ('{"issues": {"unsafe": true, "unsafe": false}}', "issues.unsafe: the key appears more"),
        ('{"overall": NaN}', "overall: not a finite number"),
        ('{"overall": 3', "request body: not JSON"),
        (b'{"comment": "\xff"}', "request body: not JSON"),
    ],
)
def test_labels_are_strict_json_types_each_key_once(
    client: Client, web_run: WebRun, body: str | bytes, message: str
) -> None:
    """What lax parsing would have stored as 1, 3, True or the last of two values is a 422."""
    alice = client(web_run.tokens["alice"])
    english = web_run.ids("en")[0]
    csrf = csrf_of(alice.get(f"/annotate/{english}").text)
    headers = {CSRF_HEADER: csrf, "content-type": "application/json"}
    answer = alice.put(f"/api/labels/{english}", content=body, headers=headers)
    assert answer.status_code == 422
    assert message in answer.json()["detail"]
    assert stored(web_run) == []


def test_oversized_bodies_are_refused(client: Client, web_run: WebRun) -> None:
    alice = client(web_run.tokens["alice"])
    english = web_run.ids("en")[0]
    csrf = csrf_of(alice.get("/annotate").text)
    huge = {"comment": "x" * (MAX_BODY_BYTES + 10)}
    answer = alice.put(f"/api/labels/{english}", json=huge, headers={CSRF_HEADER: csrf})
    assert answer.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the size shows only while reading
        yield b'{"comment": "'
        for _ in range(MAX_BODY_BYTES // 1000 + 1):
            yield b"x" * 1000
        yield b'"}'

    chunked = alice.put(
        f"/api/labels/{english}",
        content=chunks(),
        headers={CSRF_HEADER: csrf, "content-type": "application/json"},
    )
    assert chunked.status_code == 413
    assert "larger than 65536 bytes" in chunked.json()["detail"]
    too_long = save(alice, english, {"comment": "x" * 6000}, csrf)
    assert too_long.status_code == 422
    assert "comment: String should have at most 5000 characters" in too_long.json()["detail"]


def test_the_organiser_sees_progress_and_agreement(client: Client, web_run: WebRun) -> None:
    alice, bob = client(web_run.tokens["alice"]), client(web_run.tokens["bob"])
    for n, dialogue in enumerate(web_run.ids("en")):
        flagged = {
            "issues": {"repetitive": n % 2 == 0},
            "overall": 1 + n,
            "user_humanlike": 3,
            "done": True,
        }
        save(alice, dialogue, flagged)
        save(bob, dialogue, flagged)
    page = client(ORGANISER_TOKEN).get("/organiser").text
    assert "<td>alice</td><td>bench</td><td>en, zh</td><td>3</td><td>0</td><td>5</td>" in page
    assert "<td>bob</td><td>bench</td><td>en</td><td>3</td><td>0</td><td>3</td>" in page
    row = page.split("<td>issues.repetitive</td><td>en</td>")[1].split("</tr>")[0]
    assert "<td>1.000</td>" in row  # identical labels: alpha 1


def test_the_report_is_served_to_the_organiser_only(client: Client, web_run: WebRun) -> None:
    folder = web_run.path / "report"
    folder.mkdir()
    (folder / "index.html").write_text("<p>report</p>", encoding="utf-8")
    (web_run.path / "secret.txt").write_text("outside", encoding="utf-8")
    organiser = client(ORGANISER_TOKEN)
    assert organiser.get("/report/index.html").text == "<p>report</p>"
    assert organiser.get("/report/..%2Fsecret.txt").status_code == 404
    assert client(web_run.tokens["alice"]).get("/report/index.html").status_code == 403


def test_a_nul_byte_in_a_report_path_is_a_404_with_the_security_headers(
    client: Client, web_run: WebRun
) -> None:
    (web_run.path / "report").mkdir()
    answer = client(ORGANISER_TOKEN).get("/report/index%00.html")
    assert answer.status_code == 404
    assert answer.headers["x-frame-options"] == "DENY"


def test_an_unexpected_error_is_a_500_with_the_security_headers(
    web_run: WebRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("dialbench.web.organiser_routes.dialogue_list", broken)
    app = create_app(web_run.path, sha256_text(ORGANISER_TOKEN))
    with TestClient(app, raise_server_exceptions=False) as browser:
        browser.get("/enter", params={"token": ORGANISER_TOKEN})
        answer = browser.get("/dialogues")
    assert answer.status_code == 500
    assert "content-security-policy" in answer.headers
    assert "a bug" not in answer.text


def test_overlap_shares_dialogues_out_and_gold_items_reach_everyone(
    client: Client, web_run: WebRun
) -> None:
    """alice (en, zh) and bob (en) with one annotator per dialogue: the three English dialogues
    are split between them, until bob labels gold ones: then alice has those too."""

    def listed(name: str, settings: AssignmentSettings) -> set[str]:
        app = create_app(web_run.path, sha256_text(ORGANISER_TOKEN), settings)
        with TestClient(app) as browser:
            browser.get("/enter", params={"token": web_run.tokens[name]})
            page = browser.get("/annotate").text
        return {d.id for d in web_run.dialogues if f">{d.id}</a>" in page}

    english = set(web_run.ids("en"))
    split = AssignmentSettings(overlap=1)
    alice, bob = listed("alice", split), listed("bob", split)
    assert alice & bob == set()
    assert (alice | bob) & english == english
    assert set(web_run.ids("zh")) <= alice
    bobs_only = sorted(bob)
    gold = AssignmentSettings(overlap=1, gold_annotator="bob")
    bob_client = client(web_run.tokens["bob"])
    for dialogue in bobs_only:
        labels = {"issues": {"unsafe": True}, "overall": 2, "user_humanlike": 3, "done": True}
        save(bob_client, dialogue, labels)
    assert set(bobs_only) <= listed("alice", gold)
    app = create_app(web_run.path, sha256_text(ORGANISER_TOKEN), gold)
    with TestClient(app) as browser:
        browser.get("/enter", params={"token": web_run.tokens["alice"]})
        csrf = csrf_of(browser.get("/annotate").text)
        labels = {"issues": {}, "overall": 4, "user_humanlike": 3, "done": True}
        save(browser, bobs_only[0], labels, csrf)
        asked = browser.get("/enter", params={"token": ORGANISER_TOKEN})  # the same browser:
        browser.post("/enter", data={"token": ORGANISER_TOKEN, "csrf": csrf_of(asked.text)})
        board = browser.get("/organiser").text
    row = board.split("<td>alice</td>")[1].split("</tr>")[0]
    # one gold item: 8 of 9 issues agree (unsafe does not), overall 4 vs 2
    assert "<td>1</td><td>0.89</td><td>2.00</td>" in row


def test_benchmark_and_source_filters(client: Client, web_run: WebRun) -> None:
    organiser = client(ORGANISER_TOKEN)
    other = organiser.get("/dialogues", params={"benchmark": "other"}).text
    assert "2 dialogue(s) match" in other
    assert all(d in other for d in web_run.ids("pt"))
    hostile = organiser.get(
        "/dialogues", params={"source": "<script>window.pwned = 'source'</script>"}
    ).text
    assert "1 dialogue(s) match" in hostile
    assert organiser.get(
        "/dialogues", params={"judge": "judge-y", "protocol": "issues"}
    ).text.count('href="/dialogues/d-') == len(web_run.dialogues)


def test_the_status_filter_finds_unscored_judgments(client: Client, web_run: WebRun) -> None:
    organiser = client(ORGANISER_TOKEN)
    page = organiser.get("/dialogues", params={"status": "unscored", "judge": "judge-y"}).text
    assert "2 dialogue(s) match" in page
    assert all(d in page for d in web_run.ids("pt"))
    assert '<option value="ok">' in page  # the other statuses stay on offer
    assert organiser.get("/dialogues", params={"status": "maybe"}).status_code == 400


def test_a_hostile_comment_reaches_the_organiser_as_text(client: Client, web_run: WebRun) -> None:
    english = web_run.ids("en")[0]
    comment = "<script>window.pwned = 'comment'</script><img src=x onerror=alert(1)>"
    save(client(web_run.tokens["alice"]), english, {"overall": 3, "comment": comment})
    page = client(ORGANISER_TOKEN).get(f"/dialogues/{english}").text
    assert "&lt;script&gt;window.pwned = &#39;comment&#39;&lt;/script&gt;" in page
    assert "<img src=x" not in page
    reopened = client(web_run.tokens["alice"]).get(f"/annotate/{english}").text
    assert "&lt;script&gt;window.pwned" in reopened.split("<textarea")[1]


def test_the_page_says_who_is_signed_in_and_a_link_asks_before_switching(
    client: Client, web_run: WebRun
) -> None:
    browser = client(web_run.tokens["alice"])
    assert "signed in as <strong>alice</strong>" in browser.get("/annotate").text
    asked = browser.get("/enter", params={"token": web_run.tokens["bob"]})
    assert asked.status_code == 200
    # so that the browser's POST carries a real Origin, not "null"
    assert asked.headers.get_list("referrer-policy") == ["strict-origin"]
    assert browser.get("/annotate").headers.get_list("referrer-policy") == ["no-referrer"]
    assert "signed in as <strong>alice</strong>; the link you followed signs it in as" in asked.text
    assert "signed in as <strong>alice</strong>" in browser.get("/annotate").text  # not yet
    form = {"token": web_run.tokens["bob"], "csrf": csrf_of(asked.text)}
    from_elsewhere = browser.post("/enter", data=form, headers={"origin": "https://evil.test"})
    assert from_elsewhere.status_code == 403
    cross_site = browser.post("/enter", data=form, headers={"sec-fetch-site": "cross-site"})
    assert cross_site.status_code == 403
    assert browser.post("/enter", data={**form, "csrf": "forged"}).status_code == 403
    assert "signed in as <strong>alice</strong>" in browser.get("/annotate").text
    switched = browser.post("/enter", data=form, headers={"origin": "http://testserver"})
    assert switched.status_code == 303
    assert "signed in as <strong>bob</strong>" in browser.get("/annotate").text
    again = browser.get("/enter", params={"token": web_run.tokens["bob"]})
    assert again.status_code == 303  # the same person: nothing to ask


def test_a_revoked_or_reissued_link_is_dead_in_the_running_app(
    client: Client, web_run: WebRun
) -> None:
    alice, bob = client(web_run.tokens["alice"]), client(web_run.tokens["bob"])
    assert alice.get("/annotate").status_code == 200
    with RunStore.open(web_run.path, create=False) as store:
        revoke_annotator(store, "alice")
        new_bob = reissue_link(store, "bob").token
    assert alice.get("/annotate").status_code == 401
    assert client(None).get("/enter", params={"token": web_run.tokens["alice"]}).status_code == 403
    assert bob.get("/annotate").status_code == 401
    assert client(new_bob).get("/annotate").status_code == 200
    page = client(ORGANISER_TOKEN).get("/organiser").text
    assert "<td>alice (revoked)</td>" in page


def test_a_path_cannot_forge_a_log_line_or_colour_the_terminal(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="dialbench.web"):
        client(None).get("/x%0AGET /organiser 200 1.0ms%1B[31m%E2%80%AE")
    (line,) = [m for m in caplog.messages if m.startswith("GET /x")]
    assert "\n" not in line
    assert "\x1b" not in line
    assert "\u202e" not in line
    assert "/x\\nGET /organiser 200 1.0ms\\x1b[31m\\u202e" in line


def test_unknown_routes_answer_a_page_and_the_api_json(client: Client, web_run: WebRun) -> None:
    alice = client(web_run.tokens["alice"])
    for path in ("/nowhere", "/annotate/x/y"):
        missing = alice.get(path)
        assert missing.status_code == 404
        assert missing.headers["content-type"].startswith("text/html")
        assert "Cannot show this page" in missing.text
        assert "content-security-policy" in missing.headers
    wrong_method = alice.delete("/annotate")
    assert wrong_method.status_code == 405
    assert wrong_method.headers["allow"] == "GET"
    assert "Cannot show this page" in wrong_method.text
    assert alice.get("/api/nowhere").json() == {"detail": "Not Found"}


def test_a_422_about_the_whole_body_does_not_start_with_a_colon(
    client: Client, web_run: WebRun
) -> None:
    alice = client(web_run.tokens["alice"])
    english = web_run.ids("en")[0]
    csrf = csrf_of(alice.get(f"/annotate/{english}").text)
    for body in (b"{not json", b"[1, 2]"):
        answer = alice.put(
            f"/api/labels/{english}",
            content=body,
            headers={CSRF_HEADER: csrf, "content-type": "application/json"},
        )
        assert answer.status_code == 422
        detail = answer.json()["detail"]
        assert detail
        assert not detail.startswith(":")
        assert not detail.startswith(" ")
    done = save(alice, english, {"done": True, "overall": 3}, csrf)
    assert done.status_code == 422
    assert done.json()["detail"] == "Value error, done needs every score: user_humanlike not given"


def test_my_dialogues_is_linked_once(client: Client, web_run: WebRun) -> None:
    page = client(web_run.tokens["alice"]).get(f"/annotate/{web_run.ids('en')[0]}").text
    assert page.count("My dialogues") == 1
