"""The judged text fenced for its judge (`dialbench judge --fence`): defence `fence-v1`.

Text under judgment can address the judge. Two things keep it data:

- **Neutralised** for the judge's eyes only (the stored and shown dialogue is untouched): what
  could pass for the fence, for a chat template's role tokens or for the judge's own transcript
  lines and answers is defanged, and hidden text is made visible, so no turn can end the
  dialogue early, speak as the system, forge the next turn or slip in a verdict unseen.
- **Fenced**: every user message of a question (the item and any examples) stands between two
  boundary lines, and the system message says that what lies between them is data. The
  boundary is `DATA-` and 16 hex digits of the sha256 of the fenced text: no text can contain
  the hash of itself, so none can close the fence, and the same item is asked in the same words
  every time, so judgments keep their ids and the model-call cache its hits. (A random boundary
  would hold no better and break both.)

Off by default: no prompt, id or fingerprint changes unless asked, and then the configuration
names the defence (`JudgeConfiguration.defence`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dialbench.hashing import sha256_text
from dialbench.judge.prompt_language import SHARED_PROMPTS, PromptFiles
from dialbench.judge.protocol import Question, Task
from dialbench.llm.base import Message
from dialbench.schema import Dialogue, Turn

DEFENCE = "fence-v1"
FENCE_PROMPT = "judge_fence"
QUOTED = "  | "
# Look-alikes of the fence, and the chat templates' control tokens (ChatML, Llama, Gemma...).
_FENCE_LIKE = re.compile(r"<{3,}|>{3,}")
_TEMPLATE_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>|</?s>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>", re.IGNORECASE
)
_HIDDEN_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)", re.DOTALL)
# Characters that hide or reorder text; a joiner between two emoji or letters is left alone.
_INVISIBLE = re.compile(r"[\u200b\u200e\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]")
# A key of a judge's answer, quoted as JSON writes it: `"overall":` becomes `"overall"=`.
_VERDICT_KEY = re.compile(
    r'"(overall|issues|comments|score|quality|reason|winner|choice|index|rating|verdict)"\s*:',
    re.IGNORECASE,
)


def neutralised(text: str) -> str:
    """The text as the fenced judge reads it: look-alike fences and template tokens bracketed,
    hidden comments and invisible characters shown, verdict keys broken, and every line after
    the first quoted, so none can pass for a transcript line (`[3] CHATBOT: ...`)."""
    text = _FENCE_LIKE.sub(lambda found: "(" + "·" * len(found.group()) + ")", text)
    text = _TEMPLATE_TOKEN.sub(lambda found: f"(tag {found.group()[1:-1]})", text)
    text = _HIDDEN_COMMENT.sub(lambda found: f"(hidden comment: {found.group(1).strip()})", text)
    text = _INVISIBLE.sub("(invisible character)", text)
    text = _VERDICT_KEY.sub(lambda found: f'"{found.group(1)}"=', text)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\n" + QUOTED)


def _shown_turn(turn: Turn) -> Turn:
    shown = neutralised(turn.text)
    return turn if shown == turn.text else turn.model_copy(update={"text": shown})


def shown_to_judge(dialogue: Dialogue) -> Dialogue:
    """The dialogue with its turns neutralised, under its own id (a copy: never stored)."""
    turns = [_shown_turn(turn) for turn in dialogue.turns]
    if all(shown is turn for shown, turn in zip(turns, dialogue.turns, strict=True)):
        return dialogue
    return dialogue.model_copy(update={"turns": turns})


def boundary(question: Question) -> str:
    """`DATA-` and the hash of the user messages it fences."""
    fenced = "\n".join(m.content for m in question.messages if m.role == "user")
    return "DATA-" + sha256_text(fenced)[:16]


def fenced(question: Question, instructions: str) -> Question:
    """The question with each user message between the boundary lines and the fence's
    `instructions` (a `judge_fence` template) after the system message's."""
    mark = boundary(question)
    told = instructions.format(boundary=mark)
    messages = [
        message.model_copy(update={"content": f"<<<{mark}>>>\n{message.content}\n<<<END {mark}>>>"})
        if message.role == "user"
        else message
        for message in question.messages
    ]
    if messages and messages[0].role == "system":
        messages[0] = messages[0].model_copy(update={"content": f"{messages[0].content}\n\n{told}"})
    else:
        messages.insert(0, Message(role="system", content=told))
    return question.model_copy(update={"messages": tuple(messages)})


def fenced_tasks(
    tasks: Sequence[Task], dialogues: Sequence[Dialogue], prompts: PromptFiles
) -> list[Task]:
    """Every task's questions fenced, told in the language its (first) dialogue is asked in."""
    language = {dialogue.id: dialogue.language for dialogue in dialogues}
    return [
        task.model_copy(
            update={
                "questions": [
                    fenced(
                        question,
                        prompts.load(
                            FENCE_PROMPT, language[task.target.dialogue_id], SHARED_PROMPTS
                        ).text,
                    )
                    for question in task.questions
                ]
            }
        )
        for task in tasks
    ]


def fence_hashes(prompts: PromptFiles) -> dict[str, str]:
    """The fence prompt's files, for the configuration of fenced judgments."""
    return prompts.hashes(FENCE_PROMPT, package=SHARED_PROMPTS)
