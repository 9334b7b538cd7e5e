"""Production traffic as dialogues: OpenAI chat logs, OpenTelemetry GenAI spans, Langfuse and
LangSmith exports, each imported from its bundled example through the real CLI into a real store;
tool calls land as tool turns, logged calls group into conversations, the format is told from
the content, and what does not fit is an error naming its line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dialbench import examples
from dialbench.cli import app
from dialbench.errors import InputError
from dialbench.io import conversation
from dialbench.io.file_format import ReadRequest
from dialbench.io.importer import ImportOptions, import_file
from dialbench.io.registry import FORMATS, detect_format, read_items
from dialbench.schema import Dialogue
from dialbench.store import RunStore

BUNDLED = examples.bundled()
# Example -> (its format, the dialogues in it, their languages).
EXAMPLES = {
    "openai_chat_log": ("openai-log", 5, {"de", "es", "ja", "pt", "en"}),
    "otel_genai_spans": ("otel-genai", 3, {"fr", "zh", "en"}),
    "langfuse_traces": ("langfuse", 2, {"pt", "es"}),
    "langsmith_runs": ("langsmith", 2, {"ja", "de"}),
}


def imported(name: str, run: Path) -> tuple[dict[str, Any], list[Dialogue]]:
    done = CliRunner().invoke(app, ["import", str(BUNDLED[name]), "--run", str(run), "--json"])
    assert done.exit_code == 0, done.output
    with RunStore.open(run) as store:
        return json.loads(done.stdout), list(store.records(Dialogue))


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Dialogue]]:
    """Each bundled example imported once, into a store of its own."""
    folder = tmp_path_factory.mktemp("runs")
    found = {}
    for name, (fmt, count, _) in EXAMPLES.items():
        report, dialogues = imported(name, folder / name)
        assert (report["format"], report["added"]) == (fmt, count)
        found[name] = dialogues
    return found


def by_language(dialogues: list[Dialogue], language: str) -> Dialogue:
    (found,) = [d for d in dialogues if d.language == language]
    return found


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_imports_with_its_languages(
    name: str, stores: dict[str, list[Dialogue]]
) -> None:
    fmt, _, languages = EXAMPLES[name]
    dialogues = stores[name]
    assert {d.language for d in dialogues} == languages
    assert {d.source for d in dialogues} == {fmt}
    assert FORMATS.load(fmt).personal_data
    assert all(d.provenance and d.provenance.source_line for d in dialogues)


def test_tool_calls_land_as_tool_turns_with_their_results(
    stores: dict[str, list[Dialogue]],
) -> None:
    booking = by_language(stores["openai_chat_log"], "de")
    assert [t.role for t in booking.turns] == [
        "user", "tool", "assistant", "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
    search = booking.turns[1]
    assert search.tool is not None
    assert (search.tool.name, search.tool.call_id) == ("search_flights", "call_fl_01")
    assert search.tool.arguments == {
        "from": "BER", "to": "LIS", "date": "2025-06-13", "time_of_day": "morning",
    }  # fmt: skip
    assert "TP 541" in search.text
    assert booking.metadata["system_prompt"].startswith("Du bist der Buchungsassistent")
    assert booking.participants.assistant == "gpt-4o-mini-2024-07-18"
    weather = by_language(stores["openai_chat_log"], "ja")
    calls = [t.tool.arguments for t in weather.turns if t.tool is not None]
    assert calls == [{"city": "東京"}, {"city": "大阪"}]
    legacy = by_language(stores["openai_chat_log"], "pt")
    assert legacy.turns[1].tool is not None
    assert legacy.turns[1].tool.name == "check_stock"
    assert "Pinheiros" in legacy.turns[1].text
    assert legacy.turns[0].metadata == {"non_text_parts": {"image_url": 1}}


@pytest.mark.parametrize(
    ("name", "language", "source"),
    [
        ("otel_genai_spans", "fr", "tarifs-2025"),
        ("langfuse_traces", "pt", "central-de-ajuda"),
        ("langsmith_runs", "ja", "room_docs"),
    ],
)
def test_retrieved_context_is_a_retrieval_turn_before_the_reply(
    name: str, language: str, source: str, stores: dict[str, list[Dialogue]]
) -> None:
    dialogue = by_language(stores[name], language)
    user, retrieved, reply = dialogue.turns[:3]
    assert (user.role, reply.role) == ("user", "assistant")
    assert retrieved.tool is not None
    assert (retrieved.tool.kind, retrieved.tool.name) == ("retrieval", source)
    assert retrieved.text


@pytest.mark.parametrize(
    ("name", "language", "conversation", "exchanges"),
    [
        ("openai_chat_log", "de", "conv-reisewelt-7f3a", 4),
        ("openai_chat_log", "en", "user-4821", 2),
        ("otel_genai_spans", "fr", "conv_6b1e0c2f", 2),
        ("otel_genai_spans", "zh", "sess-zh-301", 1),
        ("langfuse_traces", "pt", "sess-conecta-42", 2),
        ("langsmith_runs", "ja", "thread-ja-0423", 2),
    ],
)
def test_logged_calls_group_into_one_conversation(
    name: str,
    language: str,
    conversation: str,
    exchanges: int,
    stores: dict[str, list[Dialogue]],
) -> None:
    """Later calls repeat the history: the conversation is the longest one, said once."""
    dialogue = by_language(stores[name], language)
    assert dialogue.metadata["conversation_id"] == conversation
    traces = dialogue.metadata.get("trace_ids")
    counted = dialogue.metadata.get("calls") or (len(traces) if isinstance(traces, list) else 0)
    assert counted == exchanges
    texts = [t.text for t in dialogue.turns if t.role == "user"]
    assert len(texts) == len(set(texts)) == 2 or exchanges == 1


def test_the_format_is_told_from_the_content() -> None:
    for name, (fmt, _, _) in EXAMPLES.items():
        assert detect_format(BUNDLED[name], "dialogues").name == fmt
    assert detect_format(BUNDLED["multilingual_dialogues"], "dialogues").name == "jsonl"


def test_a_file_two_formats_recognise_asks_for_format(tmp_path: Path) -> None:
    both = tmp_path / "both.jsonl"
    both.write_text(json.dumps({"run_type": "llm", "messages": []}) + "\n", "utf-8")
    with pytest.raises(InputError, match="--format openai-log or --format langsmith"):
        detect_format(both, "dialogues")


def test_a_pretty_printed_document_is_recognised_past_its_first_line(tmp_path: Path) -> None:
    spans = tmp_path / "spans.json"
    record = json.loads(BUNDLED["otel_genai_spans"].read_text("utf-8").splitlines()[0])
    spans.write_text(json.dumps(record, indent=2, ensure_ascii=False), "utf-8")
    assert detect_format(spans, "dialogues").name == "otel-genai"
    (item,) = list(read_items(spans, ReadRequest("dialogues")))
    assert item[0] == 1
    assert not isinstance(item[1], InputError)


def lines(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def problems(path: Path, fmt: str, language: str | None = None) -> list[str]:
    request = ReadRequest("dialogues", language=language)
    return [str(i) for _, i in read_items(path, request, fmt) if isinstance(i, InputError)]


HELLO = {"role": "user", "content": "Bonjour, je voudrais réserver une table pour deux ce soir."}
SPAN = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "chat", "attributes": []}
UNANSWERED = {"role": "tool", "tool_call_id": "c9", "content": "ok"}
NO_ROLE = {"request": {"messages": [{"content": "hi"}]}, "response": None}
NO_TRACE = {"resourceSpans": [{"scopeSpans": [{"spans": [{**SPAN, "traceId": ""}]}]}]}
UNTYPED = {"id": "t1", "input": "Hallo, wie geht es dir?", "observations": [{"id": "o1"}]}
ORPHAN = {"id": "r2", "run_type": "llm", "parent_run_id": "r1", "inputs": {}}


@pytest.mark.parametrize(
    ("fmt", "records", "expected"),
    [
        (
            "openai-log",
            [{"messages": [HELLO]}, {"messages": [HELLO, UNANSWERED]}],
            ":2: field 'messages.1.tool_call_id': a tool result for call id 'c9' that no "
            "earlier call made",
        ),
        (
            "openai-log",
            [{"messages": [HELLO]}, NO_ROLE],
            ":2: field 'request.messages.0.role': a message has no role",
        ),
        (
            "openai-log",
            [{"input": "hi", "output": [], "model": "gpt-4.1"}],
            ":1: an OpenAI Responses API log (input/output), not chat completions",
        ),
        (
            "openai-log",
            [{"messages": [{"role": "user", "content": "ok"}]}],
            ":1: cannot tell the conversation's language from its user turns (1 words); "
            "pass --language",
        ),
        (
            "otel-genai",
            [NO_TRACE],
            ":1: field 'resourceSpans.0.scopeSpans.0.spans.0.traceId': a span without a trace id",
        ),
        ("langfuse", [UNTYPED], ":1: field 'observations.0.type': an observation with no type"),
        ("langsmith", [ORPHAN], ":1: field 'trace_id': a child run without a trace id"),
    ],
)
def test_what_does_not_fit_names_its_line_and_field(
    fmt: str, records: list[object], expected: str, tmp_path: Path
) -> None:
    path = lines(tmp_path / "bad.jsonl", *records)
    assert f"{path}{expected}" in problems(path, fmt)


def test_otlp_without_captured_messages_says_how_to_capture_them(tmp_path: Path) -> None:
    spans = lines(
        tmp_path / "spans.jsonl", {"resourceSpans": [{"scopeSpans": [{"spans": [SPAN]}]}]}
    )
    with pytest.raises(InputError, match="OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"):
        problems(spans, "otel-genai")


def test_a_given_language_is_used_as_is(tmp_path: Path) -> None:
    short = lines(tmp_path / "short.jsonl", {"messages": [{"role": "user", "content": "ok"}]})
    ((_, record),) = list(read_items(short, ReadRequest("dialogues", language="de"), "openai-log"))
    assert isinstance(record, dict)
    assert record["language"] == "de"


REPLY = {"role": "assistant", "content": "Bien sûr."}
TOOL_RUN = {"id": "r2", "run_type": "tool", "name": "agenda", "inputs": {}, "outputs": {}}


@pytest.mark.parametrize(
    ("fmt", "record"),
    [
        ("openai-log", {"messages": [HELLO, REPLY]}),
        ("langfuse", {"id": "t1", "input": HELLO["content"], "output": REPLY, "observations": []}),
        (
            "langsmith",
            {
                "id": "r1",
                "run_type": "chain",
                "inputs": {"input": HELLO["content"]},
                "outputs": {"output": "Bien sûr."},
                "child_runs": [TOOL_RUN],
            },
        ),
    ],
)
def test_a_complete_dialogue_is_yielded_before_the_rest_is_read(
    fmt: str, record: dict[str, Any], tmp_path: Path
) -> None:
    """Streamed: the first dialogue comes out while the file holds one line; what is appended
    after is read as it comes."""
    path = lines(tmp_path / "log.jsonl", record)
    items = iter(read_items(path, ReadRequest("dialogues"), fmt))
    line, first = next(items)
    assert line == 1
    assert first["language"] == "fr"
    with path.open("a", encoding="utf-8") as more:
        more.write("{not json\n")
    assert [str(i) for _, i in items] == [
        f"{path}:2: invalid JSON: Expecting property name enclosed in double quotes (column 2)"
    ]


def test_the_examples_are_listed(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["examples"])
    listed = {line.split("\t")[0] for line in done.output.splitlines()}
    assert set(EXAMPLES) <= listed


def test_a_users_next_chat_is_a_dialogue_of_its_own(tmp_path: Path) -> None:
    """Chat completions send the whole history: a call under the same user that shares no start
    with it begins the user's next conversation."""
    again = {"role": "user", "content": "Et le musée du Louvre, il ouvre à quelle heure demain ?"}
    log = lines(
        tmp_path / "log.jsonl",
        {"user": "u-7", "messages": [HELLO, REPLY]},
        {"user": "u-7", "messages": [again, REPLY]},
    )
    found = [item for _, item in read_items(log, ReadRequest("dialogues"), "openai-log")]
    assert [d["turns"][0]["text"] for d in found] == [HELLO["content"], again["content"]]


def test_observation_rows_of_a_blob_export_make_their_trace(tmp_path: Path) -> None:
    common = {"trace_id": "t9", "session_id": None}
    rows = lines(
        tmp_path / "observations.jsonl",
        {**common, "id": "o2", "type": "GENERATION", "start_time": "2025-06-14 10:00:01.000000",
         "input": [HELLO], "output": REPLY, "model": "gpt-4o"},
        {**common, "id": "o1", "type": "TOOL", "name": "agenda", "start_time":
         "2025-06-14 10:00:00.000000", "input": {"jour": "ce soir"}, "output": "2 tables libres"},
    )  # fmt: skip
    assert detect_format(rows, "dialogues").name == "langfuse"
    ((line, dialogue),) = list(read_items(rows, ReadRequest("dialogues")))
    assert line == 1
    assert [t["role"] for t in dialogue["turns"]] == ["user", "tool", "assistant"]
    assert dialogue["participants"] == {"assistant": "gpt-4o"}


def test_a_broken_item_of_a_json_array_names_its_line(tmp_path: Path) -> None:
    traces = tmp_path / "traces.json"
    traces.write_text('[\n  {"id": "t1", "observations": []},\n  {"id": "t2" "x": 1}\n]\n', "utf-8")
    found = problems(traces, "langfuse")
    assert any(p.startswith(f"{traces}:3: invalid JSON") for p in found), found


def test_a_quiet_conversation_is_given_out_and_its_return_drops_it_as_a_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays bounded: a conversation quiet for QUIET_RECORDS records leaves the reader, and
    when a later call goes on with it (carrying the whole history), the import keeps only the
    longer one."""
    monkeypatch.setattr(conversation, "QUIET_RECORDS", 1)
    more = {"role": "user", "content": "Et le musée du Louvre, il ouvre à quelle heure demain ?"}
    other = [{"role": "user", "content": "Wie wird das Wetter morgen in Berlin sein?"}, REPLY]
    log = lines(
        tmp_path / "log.jsonl",
        {"user": "u-1", "messages": [HELLO, REPLY]},
        {"user": "u-2", "messages": other},
        {"user": "u-2", "messages": other},
        {"user": "u-1", "messages": [HELLO, REPLY, more, REPLY]},
    )
    found = [item for _, item in read_items(log, ReadRequest("dialogues"), "openai-log")]
    assert [len(d["turns"]) for d in found] == [2, 2, 4]
    with RunStore.open(tmp_path / "run") as store:
        report = import_file(store, log, ImportOptions())
    assert (report.prefixes, report.added) == (1, 2)


MORE = {"role": "user", "content": "Et le musée du Louvre, il ouvre à quelle heure demain ?"}
WEATHER = {"role": "user", "content": "Wie wird das Wetter morgen in Berlin sein?"}


def chat_span(trace: str, conversation: str, said: list[dict[str, str]]) -> dict[str, Any]:
    """An OTLP line of one chat span: the history sent (v1.37+ parts) and the reply."""

    def parts(message: dict[str, str]) -> dict[str, Any]:
        return {"role": message["role"], "parts": [{"type": "text", "content": message["content"]}]}

    values = {
        "gen_ai.operation.name": "chat",
        "gen_ai.response.model": "mistral-large-2411",
        "gen_ai.conversation.id": conversation,
        "gen_ai.input.messages": json.dumps([parts(m) for m in said]),
        "gen_ai.output.messages": json.dumps([parts(REPLY)]),
    }
    attributes = [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]
    span = {**SPAN, "traceId": trace * 32, "spanId": trace * 16, "attributes": attributes}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def test_a_quiet_otel_conversation_is_given_out_and_its_return_drops_it_as_a_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trace, then its conversation, untouched for QUIET_RECORDS spans leave the reader; a
    later trace's chat span repeats the history (its reply named by no model), so the import
    keeps the longer dialogue only."""
    monkeypatch.setattr(conversation, "QUIET_RECORDS", 1)
    log = lines(
        tmp_path / "spans.jsonl",
        chat_span("a", "k-1", [HELLO]),
        chat_span("b", "k-2", [WEATHER]),
        chat_span("c", "k-2", [WEATHER]),
        chat_span("d", "k-1", [HELLO, REPLY, MORE]),
    )
    found = [item for _, item in read_items(log, ReadRequest("dialogues"), "otel-genai")]
    assert [(d["metadata"]["conversation_id"], len(d["turns"])) for d in found] == [
        ("k-1", 2), ("k-2", 2), ("k-1", 4),
    ]  # fmt: skip
    with RunStore.open(tmp_path / "run") as store:
        report = import_file(store, log, ImportOptions())
    assert (report.prefixes, report.added) == (1, 2)


def exchange_record(fmt: str, trace: str, session: str, said: list[dict[str, str]]) -> Any:
    """One exchange of a session as a Langfuse trace or a LangSmith root run (the exchange as
    its input and output), or as a Langfuse observation row (a GENERATION: the history)."""
    if fmt == "langfuse":
        return {"id": trace, "sessionId": session, "input": said[-1]["content"],
                "output": REPLY["content"], "observations": []}  # fmt: skip
    if fmt == "langsmith":
        return {"id": trace, "run_type": "chain", "inputs": {"question": said[-1]["content"]},
                "outputs": {"answer": REPLY["content"]},
                "extra": {"metadata": {"thread_id": session}}}  # fmt: skip
    return {"id": f"o-{trace}", "traceId": trace, "sessionId": session, "type": "GENERATION",
            "startTime": "2025-06-14T10:00:00Z", "input": said, "output": REPLY}  # fmt: skip


@pytest.mark.parametrize(
    ("fmt", "returned"),
    [
        ("langfuse", [MORE["content"], REPLY["content"]]),
        ("langsmith", [MORE["content"], REPLY["content"]]),
        ("langfuse rows", [HELLO["content"], REPLY["content"], MORE["content"], REPLY["content"]]),
    ],
)
def test_a_session_that_goes_on_after_the_quiet_window_comes_out_again(
    fmt: str, returned: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions, threads and traces pieced from rows leave the reader once untouched for
    QUIET_RECORDS records. A trace that holds only its exchange then starts a dialogue of its
    own, mid-conversation (the window's cost); a history-repeating one makes the longer one."""
    monkeypatch.setattr(conversation, "QUIET_RECORDS", 1)
    log = lines(
        tmp_path / "traces.jsonl",
        exchange_record(fmt, "t1", "s-1", [HELLO]),
        exchange_record(fmt, "t2", "s-2", [WEATHER]),
        exchange_record(fmt, "t3", "s-2", [WEATHER]),
        exchange_record(fmt, "t4", "s-1", [HELLO, REPLY, MORE]),
    )
    found = [item for _, item in read_items(log, ReadRequest("dialogues"), fmt.split()[0])]
    assert [d["metadata"]["conversation_id"] for d in found] == ["s-1", "s-2", "s-1"]
    assert [t["text"] for t in found[0]["turns"]] == [HELLO["content"], REPLY["content"]]
    assert [t["text"] for t in found[2]["turns"]] == returned


@pytest.mark.parametrize("fmt", ["langfuse", "langsmith"])
def test_a_trace_exported_twice_is_read_once(fmt: str, tmp_path: Path) -> None:
    """Exports that overlap hold a trace twice: its tool call is one turn, not two."""
    tool = {"id": "o-2", "type": "TOOL", "name": "horaires", "input": {"musée": "Louvre"},
            "output": "9h-18h", "startTime": "2025-06-14T10:00:01Z", "run_type": "tool",
            "trace_id": "t1", "parent_run_id": "t1", "inputs": {"musée": "Louvre"},
            "outputs": {"output": "9h-18h"}, "start_time": "2025-06-14T10:00:01"}  # fmt: skip
    trace = exchange_record(fmt, "t1", "s-1", [MORE])
    if fmt == "langfuse":
        records = [{**trace, "observations": [tool]}] * 2
    else:
        records = [trace, tool, trace, tool]
    log = lines(tmp_path / "traces.jsonl", *records)
    ((_, dialogue),) = list(read_items(log, ReadRequest("dialogues"), fmt))
    assert [t["role"] for t in dialogue["turns"]] == ["user", "tool", "assistant"]


def _attributes(values: dict[str, str]) -> list[dict[str, Any]]:
    return [{"key": key, "value": {"stringValue": value}} for key, value in values.items()]


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        (
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup_order",
                "input.value": '{"order_id": "A-7"}',
                "output.value": '{"status": "shipped"}',
            },
            ("lookup_order", "function", {"order_id": "A-7"}, '{"status": "shipped"}'),
        ),
        (
            {
                "openinference.span.kind": "RETRIEVER",
                "input.value": "Versandkosten",
                "retrieval.documents.0.document.content": "Versand ist ab 50 € kostenlos.",
                "retrieval.documents.1.document.content": "Sonst kostet er 4,90 €.",
            },
            (
                "search",
                "retrieval",
                {"query": "Versandkosten"},
                "Versand ist ab 50 € kostenlos.\n\nSonst kostet er 4,90 €.",
            ),
        ),
        (
            {
                "langfuse.observation.type": "tool",
                "langfuse.observation.input": '{"order_id": "A-7"}',
                "langfuse.observation.output": '{"status": "shipped"}',
            },
            ("search", "function", {"order_id": "A-7"}, '{"status": "shipped"}'),
        ),
    ],
)
def test_tool_spans_of_openinference_and_the_langfuse_sdk_are_tool_turns(
    tool: dict[str, str], expected: tuple[Any, ...], tmp_path: Path
) -> None:
    """A tool span beside an LLM span of OpenInference's (its messages as `llm.*_messages`)
    is a tool turn before the reply, as the GenAI conventions' `execute_tool` spans are."""
    chat = {
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "Wo ist meine Bestellung A-7, was kostet Versand?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Sie ist unterwegs; der Versand ist kostenlos.",
        "llm.model_name": "gpt-4o-mini",
        "openinference.span.kind": "LLM",
    }
    spans = [
        {
            **SPAN,
            "name": "search",
            "spanId": "01" * 8,
            "startTimeUnixNano": "1000",
            "attributes": _attributes(tool),
        },
        {**SPAN, "startTimeUnixNano": "2000", "attributes": _attributes(chat)},
    ]
    path = lines(tmp_path / "spans.jsonl", {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    ((_, record),) = list(read_items(path, ReadRequest("dialogues"), "otel-genai"))
    assert isinstance(record, dict)
    assert [turn["role"] for turn in record["turns"]] == ["user", "tool", "assistant"]
    used = record["turns"][1]
    assert (used["tool"]["name"], used["tool"].get("kind", "function")) == expected[:2]
    assert (used["tool"]["arguments"], used["text"]) == expected[2:]
    assert record["participants"] == {"assistant": "gpt-4o-mini"}
