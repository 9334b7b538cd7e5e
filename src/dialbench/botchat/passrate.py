"""UniEval's pass@N (BotChat Figure 4): a dialogue passes at N when the judge finds it human, or
finds its first AI-generated utterance after the N-th.

Only the generated part can fail: an index inside the ChatSEED (human utterances) is a judge
error, counted apart and in no rate's denominator. N is only counted for dialogues at least N
utterances long. Every rate comes with its counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

DEFAULT_NS = (4, 8, 12, 16)
DEFINITION = (
    "pass@N: the judge says the dialogue is not AI-involved, or that its first AI-generated "
    "utterance comes after the N-th (indices from 1, the ChatSEED included). A judge index "
    "inside the ChatSEED (human utterances) is a judge error: counted apart, neither pass nor "
    "fail. N counts only dialogues with at least N utterances (no row where none is); unscored "
    "judgments are left out."
)


COLUMNS = ["judge", "chatbot", "n", "dialogues", "passed", "judge_errors", "rate"]


def pass_at_n(verdicts: pd.DataFrame, ns: Sequence[int] = DEFAULT_NS) -> pd.DataFrame:
    """`verdicts`: one scored judgment per row with `judge`, `chatbot`, `ai_involved`,
    `first_ai_index` (NaN for none), `utterances` and `seed_utterances`.

    One row per judge, chatbot and N: dialogues counted, passed, judge errors, pass rate."""
    rows = []
    for (judge, chatbot), part in verdicts.groupby(["judge", "chatbot"], sort=True):
        index = part["first_ai_index"]
        error = part["ai_involved"].astype(bool) & (index <= part["seed_utterances"])
        for n in ns:
            long_enough = part["utterances"] >= n
            if not long_enough.any():
                continue
            counted = long_enough & ~error
            passed = counted & (~part["ai_involved"].astype(bool) | (index > n))
            dialogues = int(counted.sum())
            rows.append(
                {
                    "judge": judge,
                    "chatbot": chatbot,
                    "n": n,
                    "dialogues": dialogues,
                    "passed": int(passed.sum()),
                    "judge_errors": int((long_enough & error).sum()),
                    "rate": passed.sum() / dialogues if dialogues else None,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)
