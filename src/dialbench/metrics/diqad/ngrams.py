"""DiQAD's classical baselines: word and character n-grams (characters carry Chinese and
Japanese) under naive Bayes, logistic regression or gradient boosting."""

from __future__ import annotations

from sklearn.ensemble import GradientBoostingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline, make_union


def ngram_features() -> FeatureUnion:
    return make_union(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=50_000),
        TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True, max_features=50_000
        ),
    )


def naive_bayes(seed: int) -> Pipeline:
    return make_pipeline(ngram_features(), MultinomialNB(alpha=0.1))


def logistic_regression(seed: int) -> Pipeline:
    return make_pipeline(
        ngram_features(), LogisticRegression(C=4.0, max_iter=2000, class_weight="balanced")
    )


def gradient_boosting(seed: int) -> Pipeline:
    return make_pipeline(
        ngram_features(),
        GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=seed),
    )
