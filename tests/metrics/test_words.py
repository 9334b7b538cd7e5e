"""Language-aware perturbations (VSP) and coverage-tested random negatives (NSP)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from pydantic import ValidationError

from dialbench.metrics.config import MetricTrainConfig
from dialbench.metrics.examples import nsp_examples, vsp_examples
from dialbench.metrics.words import coverage, perturb, random_negative, words
from dialbench.schema import Dialogue, Turn

SENTENCES = {
    "en": "The weather is very nice today, isn't it?",
    "de": "Das ist ein sehr gutes Buch, und ich lese es gern.",
    "zh": "我今天很高兴见到你的朋友。",
    "ja": "今日はいい天気ですね。",
}


def test_words_follow_the_language() -> None:
    assert words("Hello, world!", "en") == ["Hello", ",", "world", "!"]
    assert words("今日は", "ja") == ["今", "日", "は"]
    zh = words("我今天很高兴见到你的朋友。", "zh")
    assert {"今天", "高兴"} <= set(zh)
    assert zh[-1] == "。"


@pytest.mark.parametrize("language", list(SENTENCES))
def test_perturbations_per_language(language: str) -> None:
    text, rng = SENTENCES[language], random.Random(0)
    original = Counter(words(text, language))
    assert perturb(text, language, "none", rng) == text
    no_punct = perturb(text, language, "no_punctuation", rng)
    assert not set(words(no_punct, language)) & {",", ".", "!", "?", "。", "，"}
    assert len(perturb(text, language, "no_stopwords", rng)) < len(no_punct) + 2
    reordered = perturb(text, language, "reorder", rng)
    assert reordered != text
    assert Counter(words(reordered, language)) == original
    dropped = words(perturb(text, language, "drop", rng), language)
    assert len(dropped) < sum(original.values())
    repeated = words(perturb(text, language, "repeat", rng), language)
    assert len(repeated) - sum(original.values()) in (2, 3)
    if language in ("zh", "ja"):
        assert " " not in reordered, "no spaces are added where the language uses none"


def test_stop_words_go_per_language() -> None:
    rng = random.Random(0)
    assert "ist" not in perturb(SENTENCES["de"], "de", "no_stopwords", rng).split()
    assert "Das" not in perturb(SENTENCES["de"], "de", "no_stopwords", rng).split()
    assert "的" not in perturb(SENTENCES["zh"], "zh", "no_stopwords", rng)
    assert "は" not in perturb(SENTENCES["ja"], "ja", "no_stopwords", rng)


def test_coverage_and_negatives_fail_the_coverage_test() -> None:
    real = "I love reading books about history."
    assert coverage("I love reading books about history!", real, "en") == 1.0
    assert coverage("Pizza tonight?", real, "en") == 0.0
    paraphrases = ["I love reading books about history", "i love books about history."]
    assert random_negative(real, paraphrases, "en", random.Random(0)) is None
    pool = [*paraphrases, "Pizza tonight?", "Where do you live?"]
    rng = random.Random(1)
    for _ in range(20):
        negative = random_negative(real, pool, "en", rng)
        assert negative in ("Pizza tonight?", "Where do you live?")


def _dialogue(language: str, texts: list[str]) -> Dialogue:
    roles = ("user", "assistant")
    turns = [Turn(role=roles[i % 2], text=t) for i, t in enumerate(texts)]
    return Dialogue(language=language, turns=turns)


def test_nsp_and_vsp_examples() -> None:
    texts = [
        "你好，你今天做了什么？",
        "我去公园散步了。",
        "天气怎么样？",
        "阳光很好，不太热。",
        "你喜欢什么运动？",
        "我喜欢游泳和跑步。",
    ]
    dialogues = [_dialogue("zh", texts), _dialogue("zh", texts[::-1])]
    nsp = nsp_examples(dialogues, seed=0)
    positives = [e for e in nsp if e.target == 1.0]
    negatives = [e for e in nsp if e.target == 0.0]
    assert len(positives) == 10
    assert negatives
    real = {(e.dialogue_id, e.turn_index): e.response for e in positives}
    for negative in negatives:
        truth = real[(negative.dialogue_id, negative.turn_index)]
        assert negative.response != truth
        assert coverage(negative.response, truth, "zh") <= 0.5
    vsp = vsp_examples(dialogues, seed=0)
    assert {e.target for e in vsp} == {0.0, 1.0}
    assert all(e.previous == () for e in vsp)


def test_hard_negatives_are_on_topic_and_of_each_kind() -> None:
    texts = [
        "Hello, what did you do today?",
        "I walked in the park with my dog this morning.",
        "Nice! How was the weather in the park?",
        "Sunny and warm, perfect for a long walk with the dog.",
        "Do you take him out every single day of the week?",
        "Yes, twice a day, in the morning and in the evening.",
    ]
    dialogue = _dialogue("en", texts)
    for kind in ("same_dialogue", "repeat", "truncate", "echo"):
        examples = nsp_examples([dialogue], seed=0, kinds=(kind,))
        negatives = [e for e in examples if e.target == 0.0]
        assert negatives, kind
        for negative in negatives:
            at = negative.turn_index
            real = texts[at]
            assert negative.response != real
            if kind == "echo":
                assert negative.response == texts[at - 1]
            elif kind == "repeat":
                assert negative.response in [texts[j] for j in range(at) if j % 2 == at % 2]
            elif kind == "same_dialogue":
                assert negative.response in texts
                assert negative.response != texts[at - 1]
            else:
                assert real.startswith(negative.response)
                assert len(negative.response) < len(real)
    mixed = nsp_examples([dialogue], seed=0, kinds=("random", "same_dialogue", "echo"))
    assert sum(e.target == 1.0 for e in mixed) == sum(e.target == 0.0 for e in mixed) == 5


def test_negatives_are_for_nsp_only() -> None:
    base = {
        "name": "m",
        "data": {"runs": ["runs/x"]},
        "target": {"dimension": "d", "values": {"O": 1, "X": 0}},
    }
    with pytest.raises(ValidationError, match="negatives: are for objective 'nsp'"):
        MetricTrainConfig.model_validate({**base, "negatives": ["echo"]})
    config = MetricTrainConfig.model_validate(
        {"name": "m", "data": {"files": ["chats.jsonl"]}, "objective": "nsp", "negatives": ["echo"]}
    )
    assert config.negatives == ["echo"]
    assert "negatives" not in MetricTrainConfig.model_validate({**base}).model_dump()
