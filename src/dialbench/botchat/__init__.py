"""BotChat: self-chat from ChatSEEDs (`selfchat`, called through `api` with a `config`), utterance
lengths in cl100k tokens, and what is computed from the UniEval, Arena and GTEval judgments:
pass@N, verdict tables, bootstrap ELO and Bradley–Terry ratings (`elo`). Judging is `judge/`'s,
figures are `report/`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.botchat.config import SelfChatConfig
    from dialbench.botchat.selfchat import SelfChatResult

__all__ = ["SelfChatConfig", "SelfChatResult"]

__getattr__ = lazy_exports(
    __name__, {".config": ["SelfChatConfig"], ".selfchat": ["SelfChatResult"]}
)
