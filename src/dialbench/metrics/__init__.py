"""Trained turn-level dialogue metrics: a frozen multilingual sentence encoder + a small head.

`words` (language-aware tokens, perturbations, NSP negatives), `encoders` (packaged sentence
encoders), `examples` (training pairs from a run store), `features`, `config` (the training YAML),
`model` (the versioned model directory), `train` and `score` (Judgments like an LLM judge's).
"""
