"""Personal data on import: production logs are redacted by default before anything is stored,
counted by kind in the report and the run's config; `--personal-data keep` stores text as it
is and says so; any format can be redacted on request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dialbench import examples
from dialbench.cli import app
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from dialbench.store_contents import count_contents

BUNDLED = examples.bundled()
PRODUCTION = ("openai_chat_log", "otel_genai_spans", "langfuse_traces", "langsmith_runs")
# Planted in the bundled examples, written for the project.
PLANTED = (
    "james.carter@example.com",
    "lena.schmidt@example.de",
    "carlos.mendez@example.es",
    "mariana.costa@example.com.br",
    "hanako.sato@example.jp",
    "4111 1111 1111 1111",
    "FR76 3000 6000 0112 3456 7890",
    "Lena Schmidt",
    "Mariana Costa",
)


def run_import(*args: str) -> dict[str, Any]:
    done = CliRunner().invoke(app, ["import", *args, "--json", "--quiet"])
    assert done.exit_code == 0, done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def import_config(run: Path) -> dict[str, Any]:
    with RunStore.open(run) as store:
        (imported,) = [r for r in store.invocations() if r.command == "import"]
        return imported.config


@pytest.mark.parametrize("name", PRODUCTION)
def test_production_logs_are_redacted_before_they_are_stored(name: str, tmp_path: Path) -> None:
    run = tmp_path / "run"
    report = run_import(str(BUNDLED[name]), "--run", str(run))
    assert sum(report["redacted"].values()) > 0
    stored = (run / "dialbench.sqlite").read_bytes()
    for value in PLANTED:
        assert value.encode() not in stored
    config = import_config(run)
    assert config["options"]["personal_data"] == "redact"
    assert config["redacted"] == report["redacted"]


def test_keep_stores_text_as_it_is_and_says_so(tmp_path: Path) -> None:
    run = tmp_path / "run"
    log = str(BUNDLED["openai_chat_log"])
    redacted = run_import(log, "--run", str(run))
    kept = run_import(log, "--run", str(run), "--personal-data", "keep")
    assert kept["redacted"] is None
    assert redacted["added"] == 5
    assert kept["added"] + kept["unchanged"] == 5  # one conversation holds no personal data
    with RunStore.open(run) as store:
        texts = json.dumps([d.model_dump(mode="json") for d in store.records(Dialogue)])
    assert "james.carter@example.com" in texts
    assert "[EMAIL]" in texts
    with RunStore.open(run) as store:
        configs = [r.config["options"]["personal_data"] for r in store.invocations()]
        summary = count_contents(store)
    assert configs == ["redact", "keep"]
    assert summary.imports_by_personal_data == {"redact": 1, "keep": 1}
    assert summary.redacted == {k: n for k, n in redacted["redacted"].items() if n}


def test_any_format_is_redacted_on_request(tmp_path: Path) -> None:
    file = tmp_path / "chats.jsonl"
    turns = [
        {"role": "user", "text": "Schreib mir an lena.schmidt@example.de oder +49 30 1234567."},
        {"role": "assistant", "text": "Gern."},
    ]
    file.write_text(json.dumps({"language": "de", "turns": turns}) + "\n", encoding="utf-8")
    plain = run_import(str(file), "--run", str(tmp_path / "plain"))
    assert plain["redacted"] is None
    report = run_import(str(file), "--run", str(tmp_path / "run"), "--personal-data", "redact")
    assert (report["redacted"]["email"], report["redacted"]["phone"]) == (1, 1)
    with RunStore.open(tmp_path / "run") as store:
        (dialogue,) = store.records(Dialogue)
    assert dialogue.turns[0].text == "Schreib mir an [EMAIL] oder [PHONE]."


def test_the_given_language_reaches_the_readers(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_import(str(BUNDLED["langsmith_runs"]), "--run", str(run), "--language", "pt-BR")
    with RunStore.open(run) as store:
        assert {d.language for d in store.records(Dialogue)} == {"pt-BR"}


def test_only_dialogues_are_redacted(tmp_path: Path) -> None:
    log = str(BUNDLED["openai_chat_log"])
    options = ["--records", "annotations", "--format", "jsonl", "--personal-data", "redact"]
    done = CliRunner().invoke(app, ["validate", log, *options])
    assert done.exit_code != 0
    assert "personal data is redacted from dialogues, not annotations" in str(done.exception)
