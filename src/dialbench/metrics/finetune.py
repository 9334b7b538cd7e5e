"""Full fine-tuning of a Hugging Face encoder (XLM-R in the paper) with the paper's regression
head: a 2-layer MLP (hidden 1024, tanh) on the first token, Adam, MSE on the training targets.

Each turn is prefixed with a speaker token (`<user>`, `<assistant>`, added to the vocabulary);
the context (the last `history` turns) and the response are encoded as a pair, the context
truncated first. The fine-tuned encoder, its tokenizer and the head (safetensors, no pickle) are
saved under MODEL/hf. Needs `pip install 'dialbench[finetune]'` (torch, transformers) and a model
in a folder, in the hub cache, or on a hub this machine reaches.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dialbench.errors import DialbenchError
from dialbench.llm.hub import hub_model
from dialbench.metrics.examples import Example

SPEAKERS = {"user": "<user>", "assistant": "<assistant>"}
FOLDER = "hf"
HEAD_FILE = "head.safetensors"


def _torch() -> Any:
    try:
        import torch
        import transformers
    except ImportError:
        raise DialbenchError(
            "fine-tuning needs torch and transformers (pip install 'dialbench[finetune]')"
        ) from None
    del transformers
    return torch


def available_model(name: str) -> str:
    """Where to load the encoder from (`llm.hub`), with torch and transformers installed: both
    checked before any training work."""
    _torch()
    return hub_model(name, "finetune.model")


def pair(example: Example, history: int) -> tuple[str, str]:
    context = example.previous[-history:] if history > 0 else ()
    text = " ".join(f"{SPEAKERS[role]} {turn}" for role, turn in context)
    return text, f"{SPEAKERS[example.role]} {example.response}"


class FineTunedMetric:
    """Encoder + regression head; `fit` fine-tunes both, `predict` scores examples."""

    def __init__(self, folder: str | Path, hidden: int = 1024, max_length: int = 256) -> None:
        torch = _torch()
        import transformers
        from transformers import AutoModel, AutoTokenizer

        self.torch = torch
        self.library_version = f"transformers-{transformers.__version__}"
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.encoder = AutoModel.from_pretrained(folder)
        if self.tokenizer.add_special_tokens(
            {"additional_special_tokens": list(SPEAKERS.values())}
        ):
            self.encoder.resize_token_embeddings(len(self.tokenizer))
        size = int(self.encoder.config.hidden_size)
        self.head = torch.nn.Sequential(
            torch.nn.Linear(size, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1)
        )
        head_path = Path(folder) / HEAD_FILE
        if head_path.is_file():
            from safetensors.torch import load_file

            self.head.load_state_dict(load_file(head_path))
        self.max_length = max_length

    def _forward(self, examples: Sequence[Example], history: int) -> Any:
        contexts, responses = zip(*(pair(e, history) for e in examples), strict=True)
        batch = self.tokenizer(
            list(contexts),
            list(responses),
            truncation="only_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        first = self.encoder(**batch).last_hidden_state[:, 0]
        return self.head(first).squeeze(-1)

    def fit(
        self,
        examples: Sequence[Example],
        history: int,
        *,
        epochs: int,
        learning_rate: float,
        batch_size: int,
        seed: int,
    ) -> None:
        torch = self.torch
        torch.manual_seed(seed)
        order = list(range(len(examples)))
        rng = random.Random(seed)
        parameters = [*self.encoder.parameters(), *self.head.parameters()]
        optimizer = torch.optim.Adam(parameters, lr=learning_rate)
        self.encoder.train()
        for _ in range(epochs):
            rng.shuffle(order)
            for start in range(0, len(order), batch_size):
                chunk = [examples[i] for i in order[start : start + batch_size]]
                target = torch.tensor([e.target for e in chunk], dtype=torch.float32)
                loss = torch.nn.functional.mse_loss(self._forward(chunk, history), target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        self.encoder.eval()

    def predict(
        self, examples: Sequence[Example], history: int, batch_size: int = 64
    ) -> np.ndarray:
        scores = []
        with self.torch.no_grad():
            for start in range(0, len(examples), batch_size):
                chunk = examples[start : start + batch_size]
                scores.append(self._forward(chunk, history).numpy())
        return np.concatenate(scores) if scores else np.zeros(0)

    def save(self, folder: Path) -> list[Path]:
        from safetensors.torch import save_file

        folder.mkdir(parents=True, exist_ok=True)
        self.tokenizer.save_pretrained(folder)
        self.encoder.save_pretrained(folder)
        save_file(self.head.state_dict(), folder / HEAD_FILE)
        return sorted(p for p in folder.iterdir() if p.is_file())
