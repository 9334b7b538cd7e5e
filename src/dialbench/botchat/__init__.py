"""BotChat: self-chat from ChatSEEDs (`selfchat`, called through `api` with a `config`), utterance
lengths in cl100k tokens, and what is computed from the UniEval, Arena and GTEval judgments:
pass@N, verdict tables, bootstrap ELO and Bradley–Terry ratings (`elo`). Judging is `judge/`'s,
figures are `report/`'s."""
