"""Self-hosted servers that take fewer JSON modes: a refused call is asked again at once in the
next mode, and later calls start from the mode the server took."""

from __future__ import annotations

import pytest
from loopback_server import Loopback

from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig

SCHEMA = {"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}, "required": ["score"]}
QUESTION = [{"role": "user", "content": '[[replies:{"score": 2}]] Rate this reply.'}]


@pytest.mark.parametrize(
    ("model", "mode"),
    [("loopback", "json_schema"), ("takes-json-object", "json_object"), ("takes-text", "prompt")],
)
def test_the_first_mode_the_server_takes_is_used(loopback: Loopback, model: str, mode: str) -> None:
    judge = Runner(quiet=True).model(loopback.spec(model))
    answer = judge.structured_sync(QUESTION, SCHEMA)
    assert answer.status == "ok", answer
    assert answer.value == {"score": 2}
    assert judge.api.structured_mode == mode
    sent = loopback.stats()["last_body"].get("response_format", {}).get("type")
    assert (
        sent == {"json_schema": "json_schema", "json_object": "json_object", "prompt": None}[mode]
    )


def test_a_configured_mode_is_kept(loopback: Loopback) -> None:
    config = ModelConfig(spec=loopback.spec("takes-json-object"), structured_output="json_schema")
    judge = Runner(quiet=True).model(config.model_copy(update={"max_attempts": 1}))
    with pytest.raises(CallFailed, match="Input should be 'text' or 'json_object'"):
        judge.structured_sync(QUESTION, SCHEMA)


def test_a_pool_takes_its_first_replicas_mode(loopback: Loopback) -> None:
    url = loopback.spec().removeprefix("openai-compat:").split("#")[0]
    judge = Runner(quiet=True).model(f"pool:{url},{url}#takes-json-object")
    assert judge.structured_sync(QUESTION, SCHEMA).status == "ok"
    assert judge.api.structured_mode == "json_object"
