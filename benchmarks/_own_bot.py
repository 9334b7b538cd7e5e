"""`dialbench` with two scripted models registered, for `own_bot_throughput.py`: run as
`python _own_bot.py simulate CONFIG ...`. The user names its scene in each question, so no two
dialogues make the same call; `scripted:bot`, `python:_own_bot:reply` and
`python:_own_bot:reply_async` answer alike, trivially."""

from __future__ import annotations

import re
import sys

from dialbench.cli import main
from dialbench.llm.backends.scripted import register_script
from dialbench.llm.base import Request
from dialbench.llm.bots import BotRequest

SCENE = re.compile(r"Scene (\d+)")


def ask(request: Request) -> str:
    text = "".join(m.content for m in request.messages)
    scene = SCENE.search(text)
    asked = text.count("USER:")
    return f"Question {asked + 1} about scene {scene[1] if scene else '?'}: is it open?"


def reply(request: BotRequest) -> str:
    return f"Yes, until {len(request.messages)}."


async def reply_async(request: BotRequest) -> str:
    return reply(request)


def scripted_reply(request: Request) -> str:
    return f"Yes, until {len(request.messages) - 1}."  # less the system prompt a model gets


if __name__ == "__main__":
    register_script("user", ask)
    register_script("bot", scripted_reply)
    sys.argv[0] = "dialbench"
    main()
