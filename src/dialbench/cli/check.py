"""`dialbench check`: the regression gate, for CI. Exit 0 when the candidate run is nowhere
significantly worse than its baseline by more than the margin allowed there (and every judge
card given shows its judge obeying injections no more than allowed), 1 when it is (or one does),
2 when the runs cannot be compared (or the command line, thresholds file or a card is wrong)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from dialbench.cli.app import app, validation_message
from dialbench.cli.compare import ChatbotOption
from dialbench.errors import DialbenchError
from dialbench.figures.family import Correction
from dialbench.figures.figure_basis import BASES, Basis
from dialbench.probes.card import MAX_OBEYED, gate_card
from dialbench.probes.probing import read_card

if TYPE_CHECKING:
    from dialbench.figures.gate import GateConfig

USAGE_ERROR = 2


def gate_config(
    thresholds: Path | None,
    margin: float | None,
    dimensions: list[str],
    languages: list[str],
    protocols: list[str],
    alpha: float | None,
    correction: Correction | None,
    figures: Basis | None = None,
) -> GateConfig:
    """The thresholds file's config (or the default one), with what the options set."""
    from dialbench.figures.gate import GateConfig
    from dialbench.yaml_config import load_yaml_config

    config = (
        GateConfig()
        if thresholds is None
        else load_yaml_config(
            thresholds, GateConfig, "a gate config", "alpha:, correction:, scope:, rules:"
        )
    )
    data = config.model_dump()
    scope = (("protocols", protocols), ("dimensions", dimensions), ("languages", languages))
    data["scope"] |= {field: patterns for field, patterns in scope if patterns}
    if margin is not None:
        data["rules"] = [rule | {"margin": margin} for rule in data["rules"]]
    test = (("alpha", alpha), ("correction", correction), ("figures", figures))
    return GateConfig.model_validate(
        data | {key: value for key, value in test if value is not None}
    )


def gate_cards(cards: list[Path], max_obeyed: float) -> bool:
    """Each judge card's gate, printed; whether every one passed."""
    gates = [gate_card(read_card(path), str(path), max_obeyed) for path in cards]
    for gate in gates:
        print(gate.text())
    return all(gate.passed for gate in gates)


@app.command()
def check(
    run: Annotated[
        Path | None,
        typer.Argument(help="The candidate's run directory (needs --baseline)."),
    ] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", "-b", help="The baseline's run directory.")
    ] = None,
    thresholds: Annotated[
        Path | None,
        typer.Option(
            help="A YAML gate config: alpha, correction, scope, rules (docs/comparing.md)."
        ),
    ] = None,
    margin: Annotated[
        float | None,
        typer.Option(min=0.0, help="One margin for every figure, in its units (0.03 on a rate)."),
    ] = None,
    dimension: Annotated[
        list[str], typer.Option(help="Check only these dimensions ('issues.*'); repeatable.")
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    language: Annotated[
        list[str], typer.Option(help="Check only these languages (all: together); repeatable.")
    ] = [],  # noqa: B006
    protocol: Annotated[list[str], typer.Option(help="Check only these protocols.")] = [],  # noqa: B006
    alpha: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="Default 0.05 (or the file's).")
    ] = None,
    correction: Annotated[
        Correction | None, typer.Option(help="holm (default) or fdr_bh, over the checked rows.")
    ] = None,
    chatbot: ChatbotOption = [],  # noqa: B006
    figures: Annotated[
        Basis | None,
        typer.Option(
            help="What the figures are computed on: "
            + "; ".join(f"{name}: {meaning}" for name, meaning in BASES.items())
            + ". Default auto (or the file's).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    judge_card: Annotated[
        list[Path],
        typer.Option(
            help="A judge card (card.json, or the run dir dialbench probe wrote it in) to gate "
            "too; repeatable. Alone, without RUN, only the cards are checked."
        ),
    ] = [],  # noqa: B006
    max_obeyed: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="The most a card's judge may obey injections beyond its control (share of "
            "injected pairs moved minus the control's), per protocol over all languages.",
        ),
    ] = MAX_OBEYED,
) -> None:
    """Is RUN (the candidate) significantly worse than the baseline anywhere, by more than the
    margin allowed there? Default margin: 3% of each figure's scale (0.03 on a rate, 0.12 on
    1-5, 0.06 on 0-2). With --judge-card, does a judge obey injections more than allowed?
    Exit 0: no regression; 1: a regression (or a judge that obeys); 2: nothing to compare."""
    from dialbench.figures.decision import check_versions

    try:
        if run is None and not judge_card:
            raise DialbenchError("nothing to check: give RUN --baseline BASELINE, or --judge-card")
        if run is not None and baseline is None:
            raise DialbenchError("RUN needs --baseline BASELINE to be compared with")
        passed = gate_cards(judge_card, max_obeyed)
        if run is not None and baseline is not None:
            config = gate_config(
                thresholds, margin, dimension, language, protocol, alpha, correction, figures
            )
            verdict = check_versions(run, baseline, config, chatbot)
            print(verdict.model_dump_json(indent=2) if as_json else verdict.text())
            passed = passed and verdict.passed
    except ValidationError as invalid:
        print(f"error: {validation_message(invalid)}", file=sys.stderr)
        raise typer.Exit(USAGE_ERROR) from None
    except (DialbenchError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise typer.Exit(USAGE_ERROR) from None
    raise typer.Exit(0 if passed else 1)
