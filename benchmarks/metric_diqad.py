"""DiQAD's classical baselines on real human labels: DBDC3 dialogues graded 0/1/2.

DiQAD's own data is not here, so each DBDC3 dialogue gets a dialogue-level quality from its 30
raters per system turn: the share of X (breakdown) labels over the dialogue, cut at its tertiles
(most breakdowns = 0). The "domains" are DBDC3's chatbots (CIC, IRIS, TKTK, YI; DCM, DIT, IRS for
Japanese). Prints the figures on held-out dialogues (20%, by a hash of the id), leave-one-domain-
out, and the mean prediction with a positive / negative user reaction appended.
Usage: .venv/bin/python benchmarks/metric_diqad.py [CLASSIFIER ...]   (default: all registered)
"""

from __future__ import annotations

import sys

from _dbdc3_subset import DBDC_ZIP

from dialbench.io.importer import ImportOptions, load_records
from dialbench.metrics.diqad import DIQAD_CLASSIFIERS
from dialbench.metrics.diqad.data import breakdown_grades, split
from dialbench.metrics.diqad.evaluate import evaluate
from dialbench.schema import Annotation, Dialogue


def main() -> None:
    names = sys.argv[1:] or DIQAD_CLASSIFIERS.names()
    dialogues = [r for _, r in load_records(DBDC_ZIP, ImportOptions()) if isinstance(r, Dialogue)]
    annotations = load_records(DBDC_ZIP, ImportOptions(records="annotations"))
    labels = breakdown_grades(dialogues, (a for _, a in annotations if isinstance(a, Annotation)))
    domains = [str(d.metadata["dataset"]).split("_")[0] for d in dialogues]
    heldout = split(dialogues, 0.2, 0)
    print(f"{len(dialogues)} dialogues; labels 0/1/2: {[labels.count(y) for y in (0, 1, 2)]}")
    for name in names:
        report, _ = evaluate(name, dialogues, labels, domains, heldout)
        shown = ", ".join(
            f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in report.heldout.items()
        )
        print(f"\n{name} ({report.seconds:.1f} s a fit), held-out: {shown}")
        for domain, row in report.cross_domain.items():
            print(
                f"  without {domain}, tested on it: accuracy {row['accuracy']:.3f}, "
                f"UAR {row['uar']:.3f}"
            )
        print(
            "  mean predicted quality: "
            + ", ".join(f"{k} {v:.3f}" for k, v in report.sentiment.items())
        )


if __name__ == "__main__":
    main()
