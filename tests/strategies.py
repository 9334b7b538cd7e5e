"""Hypothesis strategies for records: arbitrary Unicode, nesting and optional fields."""

from __future__ import annotations

from hypothesis import strategies as st

from dialbench.schema import (
    Annotation,
    Dialogue,
    GenerationAttempt,
    Judgment,
    Participants,
    Provenance,
    SeedContext,
    Target,
    ToolUse,
    Turn,
    Usage,
)

LANGUAGES = ["en", "zh", "de", "fr", "pt", "es", "ja", "pt-BR", "zh-Hant"]
text = st.text(min_size=1, max_size=40)
maybe_text = st.none() | text
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
metadata = st.dictionaries(text, json_value, max_size=3)
models = st.none() | st.sampled_from(["local:qwen2.5-0.5b", "openai:gpt-4.1"])

attempts = st.builds(
    GenerationAttempt,
    text=st.text(max_size=30),
    verdict=st.none() | st.sampled_from(["accepted", "rejected"]),
    feedback=maybe_text,
    validator_model=models,
)
tool_uses = st.builds(
    ToolUse,
    name=text,
    arguments=json_value,
    call_id=maybe_text,
    kind=st.sampled_from(["function", "retrieval"]),
)
turns = st.builds(
    Turn,
    role=st.sampled_from(["user", "assistant"]),
    text=st.text(max_size=40),
    model=models,
    attempts=st.lists(attempts, max_size=2),
    metadata=metadata,
) | st.builds(Turn, role=st.just("tool"), text=st.text(max_size=40), tool=tool_uses)
seeds = st.builds(
    SeedContext,
    language=st.none() | st.sampled_from(LANGUAGES),
    scene=maybe_text,
    persona=maybe_text,
    affective_state=maybe_text,
    gender=st.none() | st.sampled_from(["female", "male"]),
    chatseed=st.none() | st.lists(text, min_size=2, max_size=2),
    metadata=metadata,
)
provenances = st.builds(
    Provenance,
    run_id=text,
    config_hash=maybe_text,
    prompt_hashes=st.dictionaries(text, text, max_size=2),
    models=st.dictionaries(text, text, max_size=2),
    source_file=maybe_text,
    source_line=st.none() | st.integers(1, 10**6),
)
dialogues = st.builds(
    Dialogue,
    language=st.sampled_from(LANGUAGES),
    source=text,
    seed=st.none() | seeds,
    participants=st.builds(Participants, user=models, assistant=models),
    turns=st.lists(turns, min_size=1, max_size=4),
    end_reason=st.none() | st.sampled_from(["natural_end", "turn_cap", "validation_failed"]),
    provenance=st.none() | provenances,
    metadata=metadata,
)
targets = st.builds(
    Target, dialogue_id=text, turn_index=st.none() | st.integers(0, 30)
) | st.builds(Target, dialogue_id=text, other_dialogue_id=text)
usages = st.builds(
    Usage,
    prompt_tokens=st.integers(0, 10**6),
    completion_tokens=st.integers(0, 10**6),
    cost_usd=st.none() | st.floats(0, 100, allow_nan=False),
)
judgments = st.one_of(
    st.builds(
        Judgment,
        protocol=text,
        judge_model=text,
        target=targets,
        result=st.dictionaries(text, json_value, max_size=3),
        raw_output=st.text(max_size=50),
        parse_status=st.just("ok"),
        usage=usages,
        provenance=st.none() | provenances,
    ),
    st.builds(
        Judgment,
        protocol=text,
        judge_model=text,
        target=targets,
        raw_output=st.text(max_size=50),
        parse_status=st.just("unscored"),
        error=maybe_text,
        usage=usages,
    ),
)
annotations = st.builds(
    Annotation,
    annotator_id=text,
    target=targets,
    labels=st.dictionaries(text, json_value, min_size=1, max_size=3),
    comment=maybe_text,
)
