"""Language-aware words, the perturbations that make VSP training data, and NSP negatives.

"Words" are whitespace tokens for most languages, jieba tokens for Chinese and characters for
Japanese (no tokenizer ships without a large dictionary); they are joined back without spaces for
Chinese and Japanese.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from typing import Literal

from dialbench.analysis.text import chinese_words
from dialbench.schema import base_language

NO_SPACE_LANGUAGES = frozenset({"zh", "ja"})
_WORD = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]", re.UNICODE)


# Small function-word lists: enough to make a "stop-word removal" variant of a sentence.
def _split(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOPWORDS: dict[str, frozenset[str]] = {
    "en": _split(
        "a an the and or but of to in on at for with is are was were be been it this that "
        "i you he she we they do does did so very just"
    ),
    "de": _split(
        "der die das den dem des ein eine einen einem und oder aber zu in im am an auf für "
        "mit ist sind war waren es ich du er sie wir ihr so sehr nur ja"
    ),
    "fr": _split(
        "le la les un une des et ou mais de du à au aux en dans sur pour avec est sont était "
        "il elle je tu nous vous ils elles ce ça très"
    ),
    "es": _split(
        "el la los las un una unos unas y o pero de del a al en con por para es son era "
        "yo tú él ella nosotros ellos muy que"
    ),
    "pt": _split(
        "o a os as um uma uns umas e ou mas de do da dos das em no na com por para é são era "
        "eu tu ele ela nós eles muito que"
    ),
    "zh": _split("的 了 是 在 和 也 就 都 而 及 与 着 或 吗 呢 吧 啊 这 那 我 你 他 她"),
    "ja": _split("は が を に で と の も へ や ね よ か な だ です ます"),
}

Perturbation = Literal["none", "no_punctuation", "no_stopwords", "reorder", "drop", "repeat"]
POSITIVE: tuple[Perturbation, ...] = ("none", "no_punctuation", "no_stopwords")
NEGATIVE: tuple[Perturbation, ...] = ("reorder", "drop", "repeat")


def _is_punctuation(token: str) -> bool:
    return all(unicodedata.category(c).startswith("P") or not c.strip() for c in token)


def words(text: str, language: str) -> list[str]:
    """The words of a text, punctuation marks as words of their own."""
    base = base_language(language)
    if base == "zh":
        return [t for t in chinese_words(text) if t.strip()]
    if base == "ja":
        return [c for c in text if c.strip()]
    return _WORD.findall(text)


def join(tokens: Sequence[str], language: str) -> str:
    return ("" if base_language(language) in NO_SPACE_LANGUAGES else " ").join(tokens)


def cut(text: str, language: str, share: float) -> str | None:
    """The text as written up to the end of its first `share` of words (None under six words):
    a reply cut off mid-sentence, its spacing and punctuation untouched."""
    tokens = words(text, language)
    if len(tokens) < 6:
        return None
    end = 0
    for token in tokens[: max(1, round(len(tokens) * share))]:
        end = text.index(token, end) + len(token)
    return text[:end]


def content_words(text: str, language: str) -> set[str]:
    """Lower-cased words without punctuation: what the coverage test compares."""
    return {w.lower() for w in words(text, language) if not _is_punctuation(w)}


def perturb(text: str, language: str, kind: Perturbation, rng: random.Random) -> str:
    """One variant of `text`. Positives keep it understandable (no punctuation, no stop words);
    negatives break it (words shuffled, a third of them dropped, or one repeated in place)."""
    tokens = words(text, language)
    if kind == "none" or not tokens:
        return text
    if kind == "no_punctuation":
        kept = [t for t in tokens if not _is_punctuation(t)]
    elif kind == "no_stopwords":
        stop = STOPWORDS.get(base_language(language), frozenset())
        kept = [t for t in tokens if t.lower() not in stop]
    elif kind == "reorder":
        kept = tokens[:]
        for _ in range(5):
            rng.shuffle(kept)
            if kept != tokens:
                break
    elif kind == "drop":
        n_drop = max(1, len(tokens) // 3)
        dropped = set(rng.sample(range(len(tokens)), min(n_drop, len(tokens) - 1)))
        kept = [t for i, t in enumerate(tokens) if i not in dropped] or tokens[:1]
    else:
        at = rng.randrange(len(tokens))
        kept = tokens[: at + 1] + [tokens[at]] * rng.randint(2, 3) + tokens[at + 1 :]
    return join(kept or tokens, language)


def coverage(candidate: str, reference: str, language: str) -> float:
    """The share of the reference's content words that the candidate also has (0 when the
    reference has none)."""
    ref = content_words(reference, language)
    if not ref:
        return 0.0
    return len(ref & content_words(candidate, language)) / len(ref)


def random_negative(
    real: str,
    pool: Sequence[str],
    language: str,
    rng: random.Random,
    max_coverage: float = 0.5,
    tries: int = 20,
) -> str | None:
    """A random response from `pool` that fails the token-coverage test against the real one
    (shares at most `max_coverage` of its words, in both directions); None if none is found."""
    for _ in range(tries):
        candidate = rng.choice(pool)
        if candidate == real:
            continue
        if max(coverage(candidate, real, language), coverage(real, candidate, language)) <= (
            max_coverage
        ):
            return candidate
    return None
