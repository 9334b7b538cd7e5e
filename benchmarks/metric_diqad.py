"""DiQAD's classical baselines on real human labels: DBDC3 dialogues graded 0/1/2.

DiQAD's own data is not here, so each DBDC3 dialogue gets a dialogue-level quality from its 30
raters per system turn: the share of X (breakdown) labels over the dialogue, cut at its tertiles
(most breakdowns = 0). The "domains" are DBDC3's chatbots (CIC, IRIS, TKTK, YI; DCM, DIT, IRS for
Japanese). Prints the figures on held-out dialogues (20%, by a hash of the id), leave-one-domain-
out, and the mean prediction with a positive / negative user reaction appended.
Usage: .venv/bin/python benchmarks/metric_diqad.py
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from dialbench.io.formats import ImportOptions, load_records
from dialbench.metrics.diqad import CLASSIFIERS, classifier, cross_domain, scores, sentiment_shift
from dialbench.metrics.diqad import splice as splice_dialogue
from dialbench.metrics.examples import held_out
from dialbench.schema import Annotation, Dialogue

DBDC_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "dbdc3_breakdown_ja_en.zip"


def main() -> None:
    dialogues = [r for _, r in load_records(DBDC_ZIP, ImportOptions()) if isinstance(r, Dialogue)]
    marks: dict[str, list[float]] = defaultdict(list)
    for _, record in load_records(DBDC_ZIP, ImportOptions(records="annotations")):
        assert isinstance(record, Annotation)
        marks[record.target.dialogue_id].append(float(record.labels["breakdown"] == "X"))
    rate = np.array([np.mean(marks[d.id]) for d in dialogues])
    cuts = np.quantile(rate, [1 / 3, 2 / 3])
    labels = [int(2 - np.searchsorted(cuts, r, side="right")) for r in rate]
    domains = [str(d.metadata["dataset"]).split("_")[0] for d in dialogues]
    texts = [splice_dialogue(d) for d in dialogues]
    dev = np.array([held_out(d.id, 0.2, 0) for d in dialogues])
    print(f"{len(dialogues)} dialogues; labels 0/1/2: {np.bincount(labels).tolist()}")
    x, y = np.asarray(texts, dtype=object), np.asarray(labels)
    for name in CLASSIFIERS:
        started = time.perf_counter()
        model = classifier(name).fit(x[~dev], y[~dev])
        figures = scores(y[dev].tolist(), model.predict(x[dev]).tolist())
        shown = ", ".join(f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in figures.items())
        print(f"\n{name} ({time.perf_counter() - started:.1f} s), held-out: {shown}")
        for domain, row in cross_domain(name, texts, labels, domains).items():
            print(
                f"  without {domain}, tested on it: accuracy {row['accuracy']:.3f}, "
                f"UAR {row['uar']:.3f}"
            )
        held = [d for d, is_dev in zip(dialogues, dev, strict=True) if is_dev]
        shift = sentiment_shift(model, held)
        print("  mean predicted quality: " + ", ".join(f"{k} {v:.3f}" for k, v in shift.items()))


if __name__ == "__main__":
    main()
