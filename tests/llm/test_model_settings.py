"""A model's settings: what every backend takes is `ModelConfig`'s own, what one backend takes is
its `Settings` record, written beside the spec all the same. Dumps, and so the identities hashed
from them (cache keys, judgment ids, stage identities), are those of dialbench before backends
declared their settings (pinned from it), and a setting written for another backend is an error
at its line of the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dialbench.errors import DialbenchError
from dialbench.hashing import content_hash
from dialbench.llm.backends.local import LocalSettings
from dialbench.llm.specs import ModelConfig
from dialbench.pipeline.config import load_pipeline

HTTP_BOT = {
    "url": "http://127.0.0.1:8765/chat?api_key=s3cret",
    "headers": {"X-Api-Key": "${FAQ_BOT_KEY}"},
    "body": {"session": "{{session_id}}", "message": "{{last_user_message}}"},
    "reply_path": "reply.text",
}
SHARED = (
    '"api_key_env": null, "max_concurrency": null, "requests_per_minute": null, '
    '"tokens_per_minute": null, "timeout_s": 120.0, "max_attempts": 6, "structured_output": null, '
    '"reasoning": null, "reasoning_effort": null'
)
# (config as written, its JSON dump in order, the dump's content hash), from dialbench a205826.
PINNED: dict[str, tuple[dict[str, Any], str, str]] = {
    "local with n_ctx": (
        {"spec": "local:qwen2.5-0.5b", "n_ctx": 2048, "n_threads": 1},
        '{"spec": "local:qwen2.5-0.5b", "base_url": null, "endpoints": [], ' + SHARED + ", "
        '"chat_format": null, "n_ctx": 2048, "n_threads": 1}',
        "9b2760a89d2b0ef8359f37ba7a8528f5e0b16a2353f8c065ddca35919b0247b7",
    ),
    "openai-compat": (
        {
            "spec": "openai-compat:http://u:pw@127.0.0.1:8000/v1#m",
            "max_concurrency": 64,
            "api_key_env": "VLLM_KEY",
        },
        '{"spec": "openai-compat:http://127.0.0.1:8000/v1#m", "base_url": null, "endpoints": [], '
        '"api_key_env": "VLLM_KEY", "max_concurrency": 64, "requests_per_minute": null, '
        '"tokens_per_minute": null, "timeout_s": 120.0, "max_attempts": 6, '
        '"structured_output": null, "reasoning": null, "reasoning_effort": null, '
        '"chat_format": null, "n_ctx": 4096, "n_threads": null}',
        "708f55e7526d907ea05752d7a495ec11e52a3f95bdc9e1b740ea881ee0455f0b",
    ),
    "pool with endpoints": (
        {
            "spec": "pool:qwen",
            "endpoints": ["http://k:secret@a:8000/v1", "http://b:8000/v1"],
            "max_concurrency": 16,
        },
        '{"spec": "pool:qwen", "base_url": null, '
        '"endpoints": ["http://a:8000/v1", "http://b:8000/v1"], "api_key_env": null, '
        '"max_concurrency": 16, "requests_per_minute": null, "tokens_per_minute": null, '
        '"timeout_s": 120.0, "max_attempts": 6, "structured_output": null, "reasoning": null, '
        '"reasoning_effort": null, "chat_format": null, "n_ctx": 4096, "n_threads": null}',
        "8156e54725a1ef784dcd8d2ed1b0c166f31ec30eb65ce6a604814249dedf4282",
    ),
    "http bot, stateful": (
        {"spec": "http:faq", "http": HTTP_BOT, "stateful": True, "timeout_s": 30},
        '{"spec": "http:faq", "base_url": null, "endpoints": [], "api_key_env": null, '
        '"max_concurrency": null, "requests_per_minute": null, "tokens_per_minute": null, '
        '"timeout_s": 30.0, "max_attempts": 6, "structured_output": null, "reasoning": null, '
        '"reasoning_effort": null, "chat_format": null, "n_ctx": 4096, "n_threads": null, '
        '"http": {"url": "http://127.0.0.1:8765/chat", "method": "POST", '
        '"headers": {"X-Api-Key": "${FAQ_BOT_KEY}"}, '
        '"body": {"session": "{{session_id}}", "message": "{{last_user_message}}"}, '
        '"reply_path": "reply.text"}, "stateful": true}',
        "e318cf1fd138d4b53c69b6f79748568af1595de402f08b5b379f4ccddb70776d",
    ),
    "python bot": (
        {"spec": "python:mybot:reply"},
        '{"spec": "python:mybot:reply", "base_url": null, "endpoints": [], ' + SHARED + ", "
        '"chat_format": null, "n_ctx": 4096, "n_threads": null}',
        "e98145c483a3e1ed1d75aa4c0b8d3b345255f4933333bd6bc67eb534c789fe09",
    ),
}


@pytest.mark.parametrize("name", PINNED)
def test_a_model_dumps_and_hashes_as_before_backends_declared_settings(name: str) -> None:
    written, dumped, hashed = PINNED[name]
    config = ModelConfig.model_validate(written)
    assert json.dumps(config.model_dump(mode="json")) == dumped
    assert content_hash(config.model_dump(mode="json")) == hashed
    as_written = config.model_dump(mode="json", exclude_unset=True)
    assert as_written.keys() == written.keys()  # metric.json keeps a model as written
    # A dump reads back (a provider batch's file holds one), former fields and all.
    again = ModelConfig.model_validate(json.loads(dumped))
    assert json.dumps(again.model_dump(mode="json")) == dumped


def test_a_backend_reads_its_settings_as_its_own_record() -> None:
    local = ModelConfig(spec="local:qwen2.5-0.5b", n_ctx=2048)
    assert local.settings_as(LocalSettings).n_ctx == 2048
    assert local.settings.context_window() == 2048
    assert ModelConfig(spec="openai:gpt-4.1").settings.context_window() is None
    with pytest.raises(
        DialbenchError, match=r"'openai:gpt-4\.1': its settings are no LocalSettings"
    ):
        ModelConfig(spec="openai:gpt-4.1").settings_as(LocalSettings)


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (
            {"spec": "openai:gpt-4.1", "n_ctx": 2048},
            "'n_ctx' is not a setting of openai: models (they take none); local: models take "
            "'n_ctx'",
        ),
        (
            {"spec": "openai:gpt-4.1", "stateful": True},
            "python:, http: models take 'stateful'",
        ),
        (
            {"spec": "local:qwen2.5-0.5b", "n_cxt": 2048},
            "'n_cxt' is not a setting of local: models (they take chat_format, n_ctx, n_threads)",
        ),
        ({"spec": "http:faq"}, "http: models need the setting 'http' (an http: chatbot's URL"),
        ({"spec": "pool:qwen"}, "name the replicas once"),
    ],
)
def test_a_setting_of_another_backend_or_a_typo_names_the_setting_and_the_backend(
    written: dict[str, Any], said: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        ModelConfig.model_validate(written)
    assert said in str(raised.value)


def test_a_misplaced_setting_is_reported_at_its_line_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.yaml"
    path.write_text(
        "run: runs/study\n"
        "stages:\n"
        "  - stage: judge\n"
        "    protocol: holistic\n"
        "    judges:\n"
        "      - spec: openai:gpt-4.1\n"
        "        n_ctx: 2048\n"
        "      - spec: local:qwen2.5-0.5b\n"
        "        n_threads: 2\n"
        "        n_cxt: 2048\n"
    )
    with pytest.raises(DialbenchError) as raised:
        load_pipeline(path)
    lines = str(raised.value).splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{path}:7: ")
    assert "judges.0.n_ctx': 'n_ctx' is not a setting of openai: models" in lines[0]
    assert lines[1].startswith(f"{path}:10: ")
    assert "judges.1.n_cxt': 'n_cxt' is not a setting of local: models" in lines[1]
