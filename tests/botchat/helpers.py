"""Shared pieces of the BotChat tests: hand-made ChatSEED dialogues and a store holding them."""

from __future__ import annotations

from pathlib import Path

from dialbench.llm.base import Request
from dialbench.schema import Dialogue, SeedContext, Turn
from dialbench.store import RunStore


def seed_dialogue(index: int, utterances: int = 4, language: str = "en") -> Dialogue:
    """A human-human dialogue as MuTual import makes it: its first two utterances the seed."""
    texts = [f"seed {index} utterance {i}" for i in range(utterances)]
    return Dialogue(
        id=f"mutual:MT-{index}",
        language=language,
        source="mutual",
        seed=SeedContext(language=language, chatseed=texts[:2]),
        turns=[
            Turn(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(texts)
        ],
    )


def seeded_run(path: Path, seeds: list[Dialogue]) -> Path:
    with RunStore.open(path) as store, store.invocation("import") as run:
        store.add(seeds, run)
    return path


def echo_step(request: Request) -> str:
    """A self-chat script: answers with how many messages it saw and the last one."""
    return f"reply to <{request.messages[-1].content}> after {len(request.messages)} messages"
