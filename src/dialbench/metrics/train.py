"""Train a metric: examples from run stores, frozen-encoder features, ridge heads per strategy,
dev figures per language on held-out dialogues, and the versioned model directory."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.neural_network import MLPRegressor

from dialbench.errors import DialbenchError, InputError
from dialbench.hashing import content_hash, file_sha256
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.metrics.augment import augment
from dialbench.metrics.config import MetricTrainConfig
from dialbench.metrics.encoders import Encoder, load_encoder
from dialbench.metrics.examples import (
    Example,
    TeacherError,
    file_dialogues,
    graded_examples,
    held_out,
    load_dialogues,
    nsp_examples,
    targeted_examples,
    teacher_labels,
    vsp_examples,
)
from dialbench.metrics.features import featurize
from dialbench.metrics.finetune import FOLDER, FineTunedMetric, available_model
from dialbench.metrics.qe import ESTIMATORS
from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.saved_metric import (
    FINE_TUNED,
    DevFigure,
    EncoderInfo,
    Head,
    HeadFile,
    LinearHead,
    MetricInfo,
    MetricModel,
    MLPHead,
    save_model,
)
from dialbench.metrics.translate import ModelTranslator, Translator
from dialbench.schema import ALL_LANGUAGES, Dialogue, base_language
from dialbench.store import RunStore

MIN_STD = 1e-6
MLP_DIRECTIONS = 128
MLP_HIDDEN = 64


def fit_ridge(features: np.ndarray, targets: np.ndarray, alpha: float) -> LinearHead:
    """Ridge on standardised features, folded back into one weight vector over raw features."""
    mean = features.mean(axis=0)
    std = np.maximum(features.std(axis=0), MIN_STD)
    ridge = Ridge(alpha=alpha).fit((features - mean) / std, targets)
    w = ridge.coef_ / std
    return LinearHead(w, float(ridge.intercept_) - float(mean @ w))


def fit_mlp(features: np.ndarray, targets: np.ndarray, alpha: float, seed: int) -> MLPHead:
    """Standardise, keep the top principal directions, one hidden ReLU layer (early stopping on
    a tenth of the data), folded into plain arrays."""
    mean = features.mean(axis=0)
    std = np.maximum(features.std(axis=0), MIN_STD)
    standard = (features - mean) / std
    pca = PCA(min(MLP_DIRECTIONS, *standard.shape), random_state=seed).fit(standard)
    with warnings.catch_warnings():
        # A fixed budget of epochs: the held-out figures training prints say how good the
        # head is, not whether the optimiser's own tolerance was reached within it.
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp = MLPRegressor(
            hidden_layer_sizes=(MLP_HIDDEN,),
            alpha=alpha,
            max_iter=300,
            early_stopping=len(targets) >= 50,
            random_state=seed,
        ).fit(pca.transform(standard), targets)
    return MLPHead(
        center=mean + std * pca.mean_,
        projection=pca.components_.T / std[:, None],
        w1=mlp.coefs_[0],
        b1=mlp.intercepts_[0],
        w2=mlp.coefs_[1][:, 0],
        b2=float(mlp.intercepts_[1][0]),
    )


def _correlation(function: Callable[..., object], x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    value = float(function(x, y)[0])  # type: ignore[index]
    return value if np.isfinite(value) else None


def examples_for(
    config: MetricTrainConfig, stores: Sequence[RunStore]
) -> tuple[list[Example], MetricTrainConfig]:
    """The training examples, and the config as trained: a judge objective's teacher names the
    judge and configuration its targets came from, even where the config left them out."""
    files = file_dialogues(config.data.files, config.data.language)
    dialogues = load_dialogues(stores, config.data.languages, files)
    if config.teacher is not None:
        try:
            labels = teacher_labels(stores, config.teacher)
        except TeacherError as error:
            raise InputError(config.source, error.message, field=f"teacher.{error.field}") from None
        return targeted_examples(dialogues, labels.targets), config.model_copy(
            update={"teacher": labels.teacher}
        )
    return _examples(config, stores, dialogues), config


def _examples(
    config: MetricTrainConfig, stores: Sequence[RunStore], dialogues: Sequence[Dialogue]
) -> list[Example]:
    if config.objective == "graded":
        assert config.target is not None
        return graded_examples(stores, dialogues, config.target.dimension, config.target.values)
    if config.objective == "nsp":
        return nsp_examples(dialogues, config.seed, kinds=config.negatives or ("random",))
    return vsp_examples(dialogues, config.seed)


def _heads(
    config: MetricTrainConfig, features: np.ndarray, targets: np.ndarray, languages: np.ndarray
) -> dict[str, Head]:
    def fit(rows: np.ndarray) -> Head:
        if config.head == "mlp":
            return fit_mlp(features[rows], targets[rows], config.mlp_alpha, config.seed)
        return fit_ridge(features[rows], targets[rows], config.alpha)

    if config.strategy == "ML":
        return {ALL_LANGUAGES: fit(np.ones(len(targets), dtype=bool))}
    if config.strategy == "EN":
        english = languages == "en"
        if not english.any():
            raise DialbenchError("strategy EN needs English training data; there is none")
        return {ALL_LANGUAGES: fit(english)}
    return {str(lang): fit(languages == lang) for lang in sorted(set(languages))}


def _linear_predictions(
    model: MetricModel, examples: Sequence[Example], features: np.ndarray
) -> np.ndarray:
    """One prediction per example, NaN where no head serves its language."""
    predicted = np.full(len(examples), np.nan)
    for language in {base_language(e.language) for e in examples}:
        rows = [i for i, e in enumerate(examples) if base_language(e.language) == language]
        scores = model.predict(features[rows], language)
        if scores is not None:
            predicted[rows] = scores
    return predicted


def _dev_figures(examples: Sequence[Example], predictions: np.ndarray) -> list[DevFigure]:
    figures = []
    for language in sorted({base_language(e.language) for e in examples}):
        rows = [
            i
            for i, e in enumerate(examples)
            if base_language(e.language) == language and np.isfinite(predictions[i])
        ]
        if not rows:
            continue
        predicted = predictions[rows]
        truth = np.array([examples[i].target for i in rows])
        figures.append(
            DevFigure(
                language=language,
                n_items=len(rows),
                n_dialogues=len({examples[i].dialogue_id for i in rows}),
                pearson=_correlation(pearsonr, predicted, truth),
                spearman=_correlation(spearmanr, predicted, truth),
            )
        )
    return figures


def _augmented(
    config: MetricTrainConfig,
    output: Path,
    train: list[Example],
    encoder: Callable[[], Encoder],
    translator: Translator | None,
) -> list[Example]:
    """The translated training examples the QE kept, for the frozen and the fine-tuned path
    alike; `encoder` is loaded only when the QE needs it."""
    augment_config = config.augment
    assert augment_config is not None
    with Runner(output / "translations", quiet=True) as runner:
        model = augment_config.translator
        llm = translator or ModelTranslator(runner, model, augment_config.language_codes)
        estimator = ESTIMATORS.load(augment_config.qe).from_resources(
            QEResources(encoder, llm, model, runner, augment_config.qe_model)
        )
        return augment(train, augment_config, llm, estimator, config.history)


def _train_fine_tuned(
    config: MetricTrainConfig,
    output: Path,
    examples: list[Example],
    dev: np.ndarray,
    started: float,
    encoder: Encoder | None,
    translator: Translator | None,
    source: str,
) -> MetricInfo:
    """Fine-tune on the training examples plus, with `augment:`, the translations the QE kept:
    the same training data as the frozen path."""
    tuning = config.finetune
    assert tuning is not None
    train = [e for e, d in zip(examples, dev, strict=True) if not d]
    if config.strategy == "EN":
        train = [e for e in train if base_language(e.language) == "en"]
        if not train:
            raise DialbenchError("strategy EN needs English training data; there is none")
    if config.augment is not None and config.strategy == "ML":  # EN: English only, as frozen
        train += _augmented(
            config, output, train, lambda: encoder or load_encoder(config.encoder), translator
        )
    held = [e for e, d in zip(examples, dev, strict=True) if d]
    metric = FineTunedMetric(source, tuning.hidden, tuning.max_length)
    metric.fit(
        train,
        config.history,
        epochs=tuning.epochs,
        learning_rate=tuning.learning_rate,
        batch_size=tuning.batch_size,
        seed=config.seed,
    )
    files = metric.save(output / FOLDER)
    targets = [e.target for e in examples]
    low, high = float(min(targets)), float(max(targets))
    predictions = np.clip(metric.predict(held, config.history), low, high)
    info = MetricInfo(
        name=config.name,
        dimension=config.result_key,
        encoder=EncoderInfo(
            name=FINE_TUNED,
            version=metric.library_version,
            dim=int(metric.encoder.config.hidden_size),
        ),
        history=config.history,
        objective=config.objective,
        strategy=config.strategy,
        clip=(low, high),
        config=config.model_dump(mode="json"),
        data_hash=content_hash(
            [[e.dialogue_id, e.turn_index, e.response, e.target] for e in examples]
        ),
        n_train={
            lang: sum(base_language(e.language) == lang for e in train)
            for lang in {base_language(e.language) for e in train}
        },
        train_seconds=round(time.perf_counter() - started, 2),
        heads={
            f"{FOLDER}/{path.name}": HeadFile(
                file=f"{FOLDER}/{path.name}", sha256=file_sha256(path)
            )
            for path in files
        },
        dev=_dev_figures(held, predictions),
        heldout_dialogues=sorted({e.dialogue_id for e in held}),
    )
    return save_model(output, info, {})


def train_metric(
    config: MetricTrainConfig,
    output: Path,
    encoder: Encoder | None = None,
    translator: Translator | None = None,
) -> MetricInfo:
    """Train on the configured runs and write the model directory `output`. Translations for
    augmentation are cached in `output/translations`: a killed training resumes them."""
    started = time.perf_counter()
    if translator is None:
        check_models(config.augment)
    source = available_model(config.finetune.model) if config.finetune is not None else ""
    with ExitStack() as stack:
        stores = [stack.enter_context(RunStore.open(run, create=False)) for run in config.data.runs]
        examples, config = examples_for(config, stores)
    if not examples:
        raise DialbenchError(
            "no training examples: the runs hold no dialogues (or, for a graded objective, no "
            "annotations with the target dimension and values; for a judge objective, no "
            "teacher's score of their turns) in the chosen languages"
        )
    fraction, seed = config.holdout.fraction, config.holdout.seed
    dev = np.array([held_out(e.dialogue_id, fraction, seed) for e in examples])
    if dev.all():
        raise DialbenchError("every dialogue is held out: lower holdout.fraction")
    if config.finetune is not None:
        return _train_fine_tuned(
            config, output, examples, dev, started, encoder, translator, source
        )
    encoder = encoder or load_encoder(config.encoder)
    # The translations first: they are model calls and need no features, so they start as soon
    # as the examples are read rather than after the encoder has embedded every one of them.
    train = [e for e, d in zip(examples, dev, strict=True) if not d]
    extra = _augmented(config, output, train, lambda: encoder, translator) if config.augment else []
    features = featurize(examples, encoder, config.history)
    targets = np.array([e.target for e in examples])
    languages = np.array([base_language(e.language) for e in examples])
    train_x, train_y, train_lang = features[~dev], targets[~dev], languages[~dev]
    if extra:
        train_x = np.vstack([train_x, featurize(extra, encoder, config.history)])
        train_y = np.concatenate([train_y, [e.target for e in extra]])
        train_lang = np.concatenate([train_lang, [base_language(e.language) for e in extra]])
    heads = _heads(config, train_x, train_y, train_lang)
    info = MetricInfo(
        name=config.name,
        dimension=config.result_key,
        encoder=EncoderInfo(name=encoder.name, version=encoder.version, dim=encoder.dim),
        history=config.history,
        objective=config.objective,
        strategy=config.strategy,
        clip=(float(targets.min()), float(targets.max())),
        config=config.model_dump(mode="json"),
        data_hash=content_hash(
            [[e.dialogue_id, e.turn_index, e.response, e.target] for e in examples]
        ),
        n_train={str(lang): int((train_lang == lang).sum()) for lang in set(train_lang)},
        train_seconds=0.0,
        heads={},
        heldout_dialogues=sorted({e.dialogue_id for e, d in zip(examples, dev, strict=True) if d}),
    )
    held = [e for e, d in zip(examples, dev, strict=True) if d]
    predictions = _linear_predictions(MetricModel(info, heads), held, features[dev])
    figures = _dev_figures(held, predictions)
    info = info.model_copy(
        update={"dev": figures, "train_seconds": round(time.perf_counter() - started, 2)}
    )
    return save_model(output, info, heads)
