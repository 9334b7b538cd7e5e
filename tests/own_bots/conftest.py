"""Bots of your own in simulations: a bot module written into the test's folder (the working
directory, as a user's), a scripted user, and the simulation config around them."""

from __future__ import annotations

import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dialbench.simulate import SimulationConfig
from tests.scripted_models import ScriptedModel

WriteBot = Callable[[str], tuple[str, str]]


@pytest.fixture
def write_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WriteBot:
    """`write_bot(source)` -> (module name, spec python:MODULE:reply): the source as a module of
    its own name in the working directory; sys.path and sys.modules are put back afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    written: list[str] = []

    def write(source: str) -> tuple[str, str]:
        name = f"bot_{uuid.uuid4().hex[:8]}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        written.append(name)
        return name, f"python:{name}:reply"

    yield write  # type: ignore[misc]
    for name in written:
        sys.modules.pop(name, None)


def module(name: str) -> ModuleType:
    return sys.modules[name]


def user_script(name: str = "user") -> ScriptedModel:
    """A user who asks about books, numbering the questions, in the dialogue's language."""

    def ask(request: Any) -> str:
        asked = sum(line.startswith("USER:") for line in request.messages[-1].content.splitlines())
        return f"Question {asked + 1}: can I borrow a book?"

    return ScriptedModel(f"{name}-{uuid.uuid4().hex[:6]}", ask)


def config(user: ScriptedModel, chatbot: str | dict[str, Any], **fields: Any) -> SimulationConfig:
    return SimulationConfig.model_validate(
        {
            "languages": ["en", "de"],
            "seeds": {"contexts": 2, "seed": 0},
            "user": {"models": [user.config().model_dump()], "form": "chat"},
            "validator": {"model": None},
            "chatbots": {"models": [chatbot]},
            "filter": {"rules": False},
            "max_utterances": 4,
            "concurrency": 4,
            **fields,
        }
    )
