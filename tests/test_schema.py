from __future__ import annotations

import pytest
from pydantic import ValidationError

from dialbench.schema import Annotation, Dialogue, Judgment, Target, Turn, Usage


def dialogue(**overrides: object) -> Dialogue:
    fields: dict[str, object] = {
        "language": "en",
        "turns": [{"role": "user", "text": "hi"}, {"role": "assistant", "text": "hello!"}],
    }
    fields.update(overrides)
    return Dialogue.model_validate(fields)


@pytest.mark.parametrize(
    ("given", "standard"),
    [("en", "en"), ("EN", "en"), ("zh-hans", "zh-Hans"), ("pt-br", "pt-BR"), ("ja", "ja")],
)
def test_language_tags_are_standardised(given: str, standard: str) -> None:
    assert dialogue(language=given).language == standard


@pytest.mark.parametrize("bad", ["english", "xx", "zz-ZZ", ""])
def test_invalid_language_tags_are_rejected(bad: str) -> None:
    with pytest.raises(ValidationError, match="BCP-47"):
        dialogue(language=bad)


def test_id_is_derived_from_content_not_metadata() -> None:
    first = dialogue()
    assert first.id.startswith("d-")
    assert dialogue(metadata={"note": "x"}).id == first.id
    assert dialogue(language="de").id != first.id
    changed = [{"role": "user", "text": "hi"}, {"role": "assistant", "text": "hey"}]
    assert dialogue(turns=changed).id != first.id


def test_given_id_is_kept() -> None:
    assert dialogue(id="conv-7").id == "conv-7"


def test_unknown_fields_and_roles_are_errors() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Turn.model_validate({"role": "user", "txt": "typo"})
    with pytest.raises(ValidationError, match="'user', 'assistant' or 'tool'"):
        Turn.model_validate({"role": "bot", "text": "x"})
    with pytest.raises(ValidationError, match="at least 1 item"):
        dialogue(turns=[])


def test_unscored_judgment_can_never_carry_a_label() -> None:
    target = Target(dialogue_id="d-1")
    with pytest.raises(ValidationError, match="never become a label"):
        Judgment(
            protocol="issues",
            judge_model="m",
            target=target,
            parse_status="unscored",
            result={"overall": 3},
        )
    with pytest.raises(ValidationError, match="needs a result"):
        Judgment(protocol="issues", judge_model="m", target=target, parse_status="ok")
    unscored = Judgment(protocol="issues", judge_model="m", target=target, parse_status="unscored")
    assert unscored.result is None


def test_target_kinds() -> None:
    assert Target(dialogue_id="a").kind == "dialogue"
    assert Target(dialogue_id="a", turn_index=3).kind == "turn"
    assert Target(dialogue_id="a", other_dialogue_id="b").kind == "pair"
    with pytest.raises(ValidationError, match="pairwise"):
        Target(dialogue_id="a", other_dialogue_id="b", turn_index=1)


def test_judgment_and_annotation_ids_identify_their_target() -> None:
    target = Target(dialogue_id="d-1", turn_index=2)
    a = Annotation(annotator_id="ann1", target=target, labels={"breakdown": "X"})
    b = Annotation(annotator_id="ann1", target=target, labels={"breakdown": "O"})
    c = Annotation(annotator_id="ann2", target=target, labels={"breakdown": "X"})
    assert a.id == b.id != c.id
    j0 = Judgment(protocol="p", judge_model="m", target=target, parse_status="ok", result={"x": 1})
    j1 = Judgment(
        protocol="p",
        judge_model="m",
        target=target,
        parse_status="ok",
        result={"x": 1},
        sample_index=1,
    )
    assert j0.id != j1.id


def test_usage_adds_up_and_keeps_unknown_cost_unknown() -> None:
    total = Usage(prompt_tokens=3, completion_tokens=1) + Usage(prompt_tokens=2, cost_usd=0.5)
    assert total == Usage(prompt_tokens=5, completion_tokens=1, cost_usd=0.5)
    assert (Usage() + Usage()).cost_usd is None


def test_a_tool_turn_carries_its_call_and_adds_nothing_to_other_identities() -> None:
    with pytest.raises(ValidationError, match="exactly when its role is 'tool'"):
        Turn.model_validate({"role": "tool", "text": "42"})
    with pytest.raises(ValidationError, match="exactly when its role is 'tool'"):
        Turn.model_validate({"role": "assistant", "text": "hi", "tool": {"name": "search"}})
    call = {"name": "weather", "arguments": {"city": "Lisbon"}, "call_id": "c1"}
    turn = Turn.model_validate({"role": "tool", "text": "21 °C", "tool": call})
    assert turn.tool is not None
    assert turn.tool.arguments == {"city": "Lisbon"}
    assert "tool" not in Turn(role="user", text="hi").model_dump()
    assert dialogue().id == Dialogue.model_validate(dialogue().model_dump()).content_id()
