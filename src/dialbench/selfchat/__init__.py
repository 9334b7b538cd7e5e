"""BotChat self-chat generation: one model continues a ChatSEED utterance by utterance."""

from dialbench.selfchat.generation import SelfChatConfig, SelfChatSummary, selfchat

__all__ = ["SelfChatConfig", "SelfChatSummary", "selfchat"]
