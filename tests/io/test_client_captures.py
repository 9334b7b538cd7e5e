"""Production import on what real client libraries write: the same eight conversations (en ×2,
de, fr, es, pt, zh, ja; 64 turns, 8 of them tool calls, one reply with two parallel calls, one
conversation streamed), captured from the openai SDK, LiteLLM, the OpenTelemetry OpenAI
instrumentation, OpenLLMetry, OpenInference and the Langfuse SDK by
`scripts/capture_client_logs/capture.py` (tests/io/captures/README.md says how each was made).
Each imports as the eight conversations, with no planted datum left in the store or an export.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from dialbench.errors import InputError
from dialbench.io.exporter import export_records
from dialbench.io.importer import ImportOptions, ImportResult, import_file
from dialbench.schema import Dialogue
from dialbench.store import RunStore

CAPTURES = Path(__file__).parent / "captures"
SCRIPT = Path(__file__).parents[2] / "scripts" / "capture_client_logs" / "conversations.py"
# The files that hold the conversations (the *_traces files hold only the spans of a run that
# recorded the content as log records).
WHOLE = sorted(p.name for p in CAPTURES.glob("*.jsonl") if not p.name.endswith("_traces.jsonl"))
# What the captures found with no conversation id: each call a dialogue of its own, 35 calls.
# Every format that exports dialogues, and where.
EXPORTS = {"jsonl": "export.jsonl", "parquet": "export.parquet", "hf": "hf"}
PER_CALL = ("gateway", "litellm", "otel_genai_spans", "openllmetry_spans", "openinference")


def _conversations() -> ModuleType:
    """The capture script's scripted conversations: what a correct import gives."""
    spec = importlib.util.spec_from_file_location("capture_conversations", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SCRIPTED = _conversations()
LANGUAGES = sorted(c.language for c in SCRIPTED.CONVERSATIONS)
# What redaction replaces in the eight conversations as stored: each planted e-mail, phone and
# IBAN once, and each of the eight names where it is introduced and where a tool repeats it.
REDACTED = {"email": 10, "phone": 10, "card": 0, "account": 2, "name": 14}


def imported(path: Path, run: Path, **options: str) -> tuple[ImportResult, list[Dialogue]]:
    with RunStore.open(run) as store:
        report = import_file(store, path, ImportOptions.model_validate(options))
        return report, list(store.records(Dialogue))


def test_the_captures_are_the_scripted_conversations() -> None:
    assert (SCRIPTED.EXPECTED_DIALOGUES, SCRIPTED.EXPECTED_TURNS) == (8, 64)
    assert SCRIPTED.EXPECTED_TOOL_TURNS == 8
    assert len(WHOLE) == 13


@pytest.mark.parametrize("name", WHOLE)
def test_each_capture_imports_as_its_eight_conversations(name: str, tmp_path: Path) -> None:
    report, dialogues = imported(CAPTURES / name, tmp_path / "run")
    turns = [turn for dialogue in dialogues for turn in dialogue.turns]
    assert len(dialogues) == 8
    assert len(turns) == 64
    assert Counter(turn.role for turn in turns) == Counter(user=28, assistant=28, tool=8)
    assert sorted(d.language for d in dialogues) == LANGUAGES
    calls = sorted(t.tool.call_id for t in turns if t.tool is not None and t.tool.call_id)
    assert calls == sorted(SCRIPTED.TOOL_CALL_IDS)
    assert all(turn.text for turn in turns if turn.role == "tool")  # every call has its result
    # Counted once per stored conversation, however many calls logged it (defect 8).
    assert report.redacted is not None
    assert report.redacted.model_dump() == REDACTED


@pytest.mark.parametrize("name", WHOLE)
def test_no_planted_datum_is_left_in_the_store_or_an_export(name: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    imported(CAPTURES / name, run)
    with RunStore.open(run) as store:
        for fmt, path in EXPORTS.items():
            export_records(store, tmp_path / path, fmt)
    written = [(run / "dialbench.sqlite").read_bytes(), (tmp_path / "export.jsonl").read_bytes()]
    tables = [pq.read_table(tmp_path / "export.parquet")]
    tables += [ipc.open_stream(path).read_all() for path in (tmp_path / "hf").glob("*.arrow")]
    written += [json.dumps(table.to_pylist(), ensure_ascii=False).encode() for table in tables]
    assert len(written) == 4
    for planted in SCRIPTED.PLANTED_PERSONAL_DATA:
        for spelled in {planted, json.dumps(planted)[1:-1]}:  # as written, and JSON-escaped
            assert all(spelled.encode() not in data for data in written), planted


@pytest.mark.parametrize("name", PER_CALL)
def test_a_call_answered_with_tool_calls_is_the_start_of_the_next(
    name: str, tmp_path: Path
) -> None:
    """Calls that name no conversation are a dialogue each; the one answered with tool calls
    ends in calls with no result yet, the start of the next call's, where they have one."""
    report, _ = imported(CAPTURES / f"{name}.jsonl", tmp_path / "run")
    assert (report.read, report.prefixes, report.added) == (35, 27, 8)


def test_a_litellm_session_id_groups_its_calls(tmp_path: Path) -> None:
    report, dialogues = imported(CAPTURES / "litellm_session.jsonl", tmp_path / "run")
    assert (report.read, report.prefixes) == (8, 0)
    named = {d.metadata["conversation_id"] for d in dialogues}
    assert named == {c.id for c in SCRIPTED.CONVERSATIONS}


def test_log_records_are_joined_to_their_spans(tmp_path: Path) -> None:
    """The spans of an event_only run hold no messages; with their log records in the same
    file, each record's messages are its span's (its model and place in time)."""
    both = tmp_path / "both.jsonl"
    spans = (CAPTURES / "otel_genai_events_traces.jsonl").read_text(encoding="utf-8")
    logs = (CAPTURES / "otel_genai_events.jsonl").read_text(encoding="utf-8")
    both.write_text(spans + logs, encoding="utf-8")
    report, dialogues = imported(both, tmp_path / "run")
    assert (report.added, sum(len(d.turns) for d in dialogues)) == (8, 64)
    assert {d.participants.assistant for d in dialogues} == {"gpt-4o-mini-2024-07-18"}


def test_other_signals_of_a_collector_file_are_passed_over_and_counted(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.jsonl"
    metrics = json.dumps({"resourceMetrics": [{"scopeMetrics": []}]})
    text = (CAPTURES / "collector_mixed.jsonl").read_text(encoding="utf-8")
    mixed.write_text(f"{metrics}\n{text}{metrics}\n", encoding="utf-8")
    report, _ = imported(mixed, tmp_path / "run")
    assert report.added == 8
    assert report.passed_over == {"OTLP metrics records": 2}


@pytest.mark.parametrize(
    ("name", "setting"),
    [
        ("otel_genai_events_traces", "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"),
        ("openllmetry_logs_traces", "TRACELOOP_TRACE_CONTENT"),
    ],
)
def test_spans_without_messages_are_refused_with_their_librarys_setting(
    name: str, setting: str, tmp_path: Path
) -> None:
    with pytest.raises(InputError, match=setting):
        imported(CAPTURES / f"{name}.jsonl", tmp_path / "run")


def test_openinference_spans_without_messages_name_openinferences_setting(
    tmp_path: Path,
) -> None:
    hidden = tmp_path / "hidden.jsonl"
    with hidden.open("w", encoding="utf-8") as out:
        for line in (CAPTURES / "openinference.jsonl").open(encoding="utf-8"):
            record = json.loads(line)
            for batch in record["resourceSpans"]:
                for scope in batch["scopeSpans"]:
                    for span in scope["spans"]:
                        span["attributes"] = [
                            a for a in span["attributes"] if not a["key"].startswith("llm.")
                        ]
            out.write(json.dumps(record) + "\n")
    with pytest.raises(InputError, match="OPENINFERENCE_HIDE_INPUTS"):
        imported(hidden, tmp_path / "run")


def test_the_langfuse_sdks_spans_asked_for_as_an_export_say_which_format_reads_them(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError, match="pass --format otel-genai"):
        imported(CAPTURES / "langfuse_otlp.jsonl", tmp_path / "run", format="langfuse")
