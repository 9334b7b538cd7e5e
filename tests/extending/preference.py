"""A pairwise protocol as a plugin writes one: which of two chatbots handled the same user
better. One class; registered for a test with the `register` fixture."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.protocol import PairProtocol, Question, Result, hashes
from dialbench.llm.base import JsonSchema, Message
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue, Participants, SeedContext, Turn

WINNER: JsonSchema = {
    "type": "object",
    "properties": {"winner": {"enum": ["first", "second", "tie"]}},
    "required": ["winner"],
}


class PreferenceProtocol(PairProtocol):
    """Which of two chatbots handled the same user better: all a pairwise protocol needs."""

    name = "preference"
    description = "pairwise: which chatbot did better"
    default_max_tokens = 32

    def file_hashes(self) -> dict[str, str]:
        return hashes(load_prompt("judge_dialogue"))

    def questions(self, first: Dialogue, second: Dialogue) -> list[Question]:
        shown = "\n\n".join(
            f"[{n}]\n{numbered_transcript(d.turns)}" for n, d in (("1", first), ("2", second))
        )
        message = Message(role="user", content=f"Which chatbot did better?\n{shown}")
        return [
            Question(name=self.name, messages=(message,), json_schema=WINNER, params=self.params)
        ]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = answers[self.name]
        assert isinstance(answer, dict)
        return {"winner": answer["winner"]}


def chat(seed: str, chatbot: str, reply: str) -> Dialogue:
    return Dialogue(
        language="en",
        seed=SeedContext(scene=seed),
        participants=Participants(user="sim", assistant=chatbot),
        turns=[Turn(role="user", text=f"{seed}?"), Turn(role="assistant", text=reply)],
    )
