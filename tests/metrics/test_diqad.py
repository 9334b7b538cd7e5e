"""DiQAD baselines: splicing, labels from a run, classifiers, cross-domain, sentiment shift."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from dialbench.metrics.diqad import classifier
from dialbench.metrics.diqad.config import DEFAULT_CLASSIFIERS
from dialbench.metrics.diqad.data import dialogue_labels
from dialbench.metrics.diqad.encoder import EncoderFeatures
from dialbench.metrics.diqad.evaluate import cross_domain, scores, sentiment_shift
from dialbench.metrics.diqad.splice import splice
from dialbench.schema import Annotation, Dialogue, Judgment, Target, Turn
from dialbench.store import RunStore
from tests.metrics.helpers import graded_dialogues


def test_splice_and_sentiment_templates() -> None:
    dialogue = graded_dialogues()[0][0]
    assert splice(dialogue) == "question: question 0 about a travel response: sorry I do not know"
    assert splice(dialogue, "pos").endswith("question: ok thanks! response: you are welcome!")
    assert splice(dialogue, "neg").endswith("question: I don't think so.")
    chinese = Dialogue(language="zh", turns=[Turn(role="user", text="你好")])
    assert splice(chinese, "neg").endswith("question: 不是这样的。")


def test_labels_from_annotations_or_a_judge(tmp_path: Path) -> None:
    data = graded_dialogues()[:3]
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([d for d, _, _ in data], run)
        target = Target(dialogue_id=data[0][0].id)
        store.add(
            [
                Annotation(annotator_id=a, target=target, labels={"quality": v})
                for a, v in (("a", 2), ("b", 1), ("c", 2))
            ],
            run,
        )
        store.add(
            [
                Judgment(
                    protocol="holistic",
                    judge_model=f"judge{j}",
                    target=Target(dialogue_id=d.id),
                    result={"quality": q, "reason": "…"},
                    parse_status="ok",
                )
                for j in range(2)
                for d, q, _ in data
            ],
            run,
        )
        assert dialogue_labels(store, "quality") == {data[0][0].id: 2}
        assert dialogue_labels(store, "quality", "holistic") == {d.id: q for d, q, _ in data}


@pytest.mark.parametrize("name", DEFAULT_CLASSIFIERS)
def test_classifiers_learn_and_analyses_run(name: str) -> None:
    data = graded_dialogues()
    texts = [splice(d) for d, _, _ in data]
    labels = [q for _, q, _ in data]
    model = classifier(name).fit(texts[::2], labels[::2])
    figures = scores(labels[1::2], model.predict(texts[1::2]).tolist())
    assert set(figures) == {"accuracy", "uar", "kappa", "spearman", "pearson", "precision",
                            "recall", "f1"}  # fmt: skip
    assert figures["accuracy"] is not None
    assert figures["accuracy"] > 0.8
    by_domain = cross_domain(name, texts, labels, [d for _, _, d in data])
    assert set(by_domain) == {"a", "b", "c"}
    shift = sentiment_shift(model, [d for d, _, _ in data])
    assert set(shift) == {"original", "pos", "neg"}


def test_undefined_figures_are_none() -> None:
    figures = scores([1, 1, 1], [1, 1, 1])
    assert figures["accuracy"] == 1.0
    assert figures["kappa"] is None
    assert figures["pearson"] is None


def test_classifiers_saved_before_the_package_split_still_load() -> None:
    """An encoder classifier pickled when diqad was one module names its features class there."""
    old_reference = b"cdialbench.metrics.diqad\nEncoderFeatures\n."
    assert pickle.loads(old_reference) is EncoderFeatures
