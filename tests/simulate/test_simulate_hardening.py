"""Hostile configs for `dialbench simulate`: secrets in specs, bad bytes, huge counts, errors."""

from __future__ import annotations

import base64
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dialbench.schema import Dialogue
from dialbench.seeds import (
    LanguageTarget,
    SeedText,
    coverage_table,
    crossed_coverage_table,
    sample_contexts,
)
from dialbench.store import RunStore
from tests.simulate.conftest import WriteConfig

DIALBENCH = Path(sys.executable).with_name("dialbench")

SECRET = "s3cr3t-do-not-store"


def every_byte_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_credentials_in_a_spec_are_used_for_the_call_and_stored_nowhere(
    cli, loopback_config: WriteConfig, latency_loopback, tmp_path: Path
) -> None:
    port = latency_loopback.port
    secret_spec = f"openai-compat:http://user:{SECRET}@127.0.0.1:{port}/v1?api_key={SECRET}#bot"
    config = loopback_config(
        user={"models": [secret_spec], "form": "chat"},
        chatbots={"models": [secret_spec]},
        seeds={"contexts": 1},
    )
    shown = cli("simulate", config, "--run", "run", "--quiet").stdout
    sent = latency_loopback.stats()["last_headers"]["Authorization"]
    assert base64.b64decode(sent.removeprefix("Basic ")) == f"user:{SECRET}".encode()
    with RunStore.open(tmp_path / "run") as store:
        (dialogue,) = store.records(Dialogue)
        runs = store.invocations()
    assert dialogue.participants.assistant == f"openai-compat:http://127.0.0.1:{port}/v1#bot"
    assert runs[0].config["chatbots"]["models"][0]["spec"] == dialogue.participants.assistant
    judge = cli("judge", "run", "--judge", secret_spec, "--protocol", "issues", ok=False)
    outputs = [
        shown,
        judge.stdout + judge.stderr,
        cli("show", "run", "--json").stdout,
        cli("export", "run", "-o", "out/d.jsonl").stdout,
        cli("export", "run", "--records", "judgments", "-o", "out/j.jsonl").stdout,
        cli("report", "run", ok=False).stdout,
    ]
    assert all(SECRET not in text for text in outputs)
    assert SECRET.encode() not in every_byte_under(tmp_path / "run")  # store, WAL, report
    assert SECRET.encode() not in every_byte_under(tmp_path / "out")
    assert b"127.0.0.1" in every_byte_under(tmp_path / "out")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai-compat:http://127.0.0.1:99999/v1#m", "not a valid URL (Port out of range"),
        ("openai-compat:http://[::1/v1#m", "not a valid URL (Invalid IPv6 URL)"),
        ("openai-compat:http://:8000/v1#m", "the URL names no host"),
        ("openai-compat:http://u:pw@127.0.0.1:0/v1#m", "port 0 cannot be called"),
    ],
)
def test_a_spec_with_a_bad_host_or_port_fails_the_dry_run_at_its_line(
    cli, loopback_config: WriteConfig, spec: str, expected: str
) -> None:
    done = cli("simulate", loopback_config(chatbots={"models": [spec]}), "--dry-run", ok=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "simulate.yaml:" in done.stderr
    assert "field 'chatbots.models.0'" in done.stderr
    assert expected in done.stderr
    assert ":pw@" not in done.stderr


def test_a_config_that_is_not_utf8_is_located(cli, tmp_path: Path) -> None:
    config = tmp_path / "latin1.yaml"
    config.write_bytes("languages: [en]\n# café\nchatbots: {models: [local:x]}\n".encode("latin-1"))
    done = cli("simulate", config, "--dry-run", ok=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "latin1.yaml:2: not valid UTF-8 (byte 0xe9 at column 6)" in done.stderr


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"seeds": {"contexts": 99999999999999999999}},
            "field 'seeds.contexts': Input should be less than or equal to 10000",
        ),
        ({"max_utterances": 10**9}, "field 'max_utterances': Input should be less than or equal"),
        ({"concurrency": 10**9}, "field 'concurrency': Input should be less than or equal to 1024"),
    ],
)
def test_counts_have_upper_bounds(
    cli, loopback_config: WriteConfig, overrides: dict[str, object], expected: str
) -> None:
    done = cli("simulate", loopback_config(**overrides), "--dry-run", ok=False)
    assert done.returncode == 1
    assert expected in done.stderr


# 100 languages (the bound) by ISO 639-1 code.
ISO_639_1 = (
    "aa ab af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy "
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv "
    "kw ky la lb lg li ln lo lt lu lv mg mh "
)
MANY_LANGUAGES = ISO_639_1.split()


def test_a_dry_run_at_the_bounds_samples_one_language_only(
    loopback_config: WriteConfig, tmp_path: Path
) -> None:
    """A million contexts would take gigabytes; the dry run samples the 10,000 of one language,
    which are the same in every language. Measured in a fresh parent, whose only child it is."""
    config = loopback_config(languages=MANY_LANGUAGES, seeds={"contexts": 10_000})
    measure = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(done.stdout)\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", measure, str(DIALBENCH), "simulate", str(config), "--dry-run"],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - started
    status, peak_kib = map(int, done.stdout.split("\n", 1)[0].split())
    assert status == 0, done.stdout
    assert re.search(r"language\s*│\s*aa\s*│\s*10000\s*│\s*1%", done.stdout)
    assert peak_kib < 400_000, f"the dry run peaked at {peak_kib // 1024} MiB"
    assert seconds < 60, f"the dry run took {seconds:.0f} s"


def test_coverage_crossed_by_arithmetic_equals_coverage_of_the_crossing() -> None:
    scenes = [SeedText(text=f"Someone plans trip {i}.", source="s") for i in range(7)]
    personas = [SeedText(text=f"A student {i}.", source="p") for i in range(3)]
    languages = [LanguageTarget(language=tag) for tag in ("en", "zh", "de", "fr", "pt", "es")]
    crossing = sample_contexts(scenes, personas, languages, 20, seed=3)
    one = sample_contexts(scenes, personas, languages[:1], 20, seed=3)
    assert crossed_coverage_table(one, languages) == coverage_table(crossing)


def test_command_line_values_are_checked_and_name_their_option(
    cli, loopback_config: WriteConfig
) -> None:
    config = loopback_config()
    done = cli("simulate", config, "--dry-run", "--languages", "en,EN", ok=False)
    assert done.returncode == 1
    assert "--languages: field 'languages': Value error, lists en more than once" in done.stderr
    done = cli("simulate", config, "--dry-run", "--contexts", "10001", ok=False)
    assert "--contexts: field 'seeds.contexts': Input should be less than or equal" in done.stderr


def test_a_run_whose_every_dialogue_ended_in_error_exits_non_zero(
    cli, loopback_config: WriteConfig, tmp_path: Path
) -> None:
    with socket.socket() as silent:  # it takes connections and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        chatbot = {"spec": f"openai-compat:{url}#silent", "max_attempts": 1, "timeout_s": 1}
        config = loopback_config(chatbots={"models": [chatbot]})
        done = cli("simulate", config, "--run", "run", "--quiet", "--contexts", "1", ok=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "every one of the 1 dialogues generated ended in error" in done.stderr
    with RunStore.open(tmp_path / "run") as store:
        assert [d.end_reason for d in store.records(Dialogue)] == ["error"]
    assert json.loads(cli("show", "run", "--json").stdout)["dialogues"] == 1
