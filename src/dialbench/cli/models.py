"""`dialbench models` and `dialbench chat`: what models there are, and whether one answers."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dialbench.cli.app import app
from dialbench.cli.metric import metrics_summary, print_card_notes
from dialbench.cli.probe import CARD_TITLE, card_table
from dialbench.cli.terminal_tables import screen_width
from dialbench.domains import never_measured_line, unmeasured
from dialbench.llm.base import GenerationParams, Message
from dialbench.llm.measured import COMMAND, JudgeFigure, MeasuredJudges, measured_judges
from dialbench.llm.packaged import PACKAGED_MODELS, cache_dir, status
from dialbench.llm.preflight import check_models
from dialbench.llm.runner import Runner
from dialbench.llm.specs import BACKENDS, ModelConfig
from dialbench.metrics.packaged import packaged_metrics
from dialbench.probes.packaged_cards import COMMAND as CARDS_COMMAND
from dialbench.probes.packaged_cards import packaged_cards
from dialbench.registry import BUILT_IN, REGISTERED, RefusedEntry, Registry

console = Console()


@app.command()
def models(
    verify: Annotated[
        bool, typer.Option("--verify", help="Re-hash assembled files instead of trusting stamps.")
    ] = False,
) -> None:
    """List the packaged local models (installed or not, size, sha256 status) and the backends,
    plugins' included."""
    table = Table(title=escape(f"Packaged local models, assembled in {cache_dir()}"))
    for column in ("spec", "size", "installed", "sha256"):
        table.add_column(column, no_wrap=True)
    for model in PACKAGED_MODELS.values():
        table.add_row(
            f"local:{model.name}",
            f"{model.size / 1e6:,.0f} MB",
            "yes" if model.installed() else "no",
            status(model, rehash=verify),
        )
    console.print(table)
    for model in PACKAGED_MODELS.values():
        note = f" ({model.note})" if model.note else ""
        install = escape(f"pip install 'dialbench[{model.pip_extra}]'")
        console.print(f"local:{model.name}: {model.title}{note}; {install}", highlight=False)
    print_judges()
    print_cards()
    print_metrics()
    console.print(backends_table())
    plugins = plugins_table()
    if plugins is not None:
        console.print(plugins)
    console.print(
        "Also: local:/path/to/any.gguf, openai:<model> (key from OPENAI_API_KEY), "
        "openai-compat:<base URL>#<model>, python:<module>:<function>. "
        "Check one with: dialbench chat SPEC 'hello'",
        highlight=False,
    )


def _correlation(figure: JudgeFigure | None) -> str:
    if figure is None or figure.pearson is None:
        return "-"
    unscored = f", {figure.unscored:.0%} unscored" if figure.unscored else ""
    return f"{figure.pearson_shown()}{unscored}"


def print_judges() -> None:
    """The packaged models as judges, as measured: so a weak one is not taken for a strong one,
    nor a figure on one domain for a figure on every domain."""
    measured = measured_judges()
    console.print(judges_table(measured))
    console.print(never_measured_line(unmeasured([measured.domain])), highlight=False)


def judges_table(measured: MeasuredJudges) -> Table:
    table = Table(
        title="The packaged models as judges: Pearson r [95% CI] with DBDC3's humans "
        f"({measured.domain} only)",
        caption=escape(f"{measured.measured}. Measured by {COMMAND}."),
    )
    for column in ("spec", "language", "turns", "argmax", "expected"):
        table.add_column(column, no_wrap=column in ("spec", "language", "turns"))
    for spec, figures in measured.models.items():
        by = {(f.language, f.scoring): f for f in figures}
        for language in dict.fromkeys(f.language for f in figures):
            argmax, expected = by.get((language, "argmax")), by.get((language, "expected"))
            turns = (argmax or expected or figures[0]).n_items
            table.add_row(spec, language, str(turns), _correlation(argmax), _correlation(expected))
    return table


def print_cards() -> None:
    """The packaged judges' cards, pooled over the languages: how far each obeys text that
    addresses it, and where it prefers a slot or a length."""
    packaged = packaged_cards()
    if not packaged.cards:
        console.print(f"The packaged judges' cards: not measured yet ({CARDS_COMMAND})")
        return
    table = card_table(packaged.cards, f"The packaged judges' cards: {CARD_TITLE}", pooled=True)
    table.print(console, screen_width(console))
    console.print(
        f"Measured by {CARDS_COMMAND}: {packaged.measured}. Per language: dialbench probe.",
        highlight=False,
        markup=False,
    )


def print_metrics() -> None:
    """The packaged trained metrics' held-out figures in brief, with the same notes as
    `dialbench metric list`."""
    metrics = packaged_metrics()
    console.print(metrics_summary(metrics))
    for _, card in metrics:
        print_card_notes(card)


def backends_table() -> Table:
    """Every spec prefix, where its backend comes from (built in, or which plugin package), and
    the first line of its class's (or else its module's) docstring; a plugin that cannot be
    imported says why."""
    table = Table(title="Backends (the spec's prefix)")
    for column in ("prefix", "origin", "serves"):
        table.add_column(column, no_wrap=column != "serves")
    for name in BACKENDS:
        try:
            backend = BACKENDS.load(name)
        except RefusedEntry as error:  # a broken plugin is listed, not fatal
            about = f"broken: {error.problem}"
        else:
            doc = backend.__doc__ or sys.modules[backend.__module__].__doc__ or ""
            about = doc.strip().split("\n")[0]
        table.add_row(name, BACKENDS.origin(name), escape(about))
    return table


def plugins_table() -> Table | None:
    """The plugins' entries at every other extension point, and whether each loads; None when
    there are none. The registries are imported here, not with the command line: some of their
    modules need pandas, which no other command should wait for."""
    from dialbench.cli.run import STAGE_PRINTERS
    from dialbench.figures.observations import OBSERVATIONS
    from dialbench.io.registry import FORMATS
    from dialbench.judge.registry import PROTOCOLS
    from dialbench.metrics.diqad import DIQAD_CLASSIFIERS
    from dialbench.metrics.encoders import ENCODERS
    from dialbench.metrics.qe import ESTIMATORS
    from dialbench.pipeline.executors import EXECUTORS
    from dialbench.pipeline.registry import STAGES
    from dialbench.report.protocols import PROTOCOL_SECTIONS

    registries: tuple[Registry[Any], ...] = (
        PROTOCOLS,
        FORMATS,
        STAGES,
        STAGE_PRINTERS,
        EXECUTORS,
        ENCODERS,
        ESTIMATORS,
        DIQAD_CLASSIFIERS,
        PROTOCOL_SECTIONS,
        OBSERVATIONS,
    )
    table = Table(title="Plugins (other than backends)")
    for column in ("entry", "origin", "status"):
        table.add_column(column, no_wrap=column != "status")
    for registry in registries:
        for name in registry:
            origin = registry.origin(name)
            if origin in (BUILT_IN, REGISTERED):
                continue
            try:
                registry.load(name)
            except RefusedEntry as error:
                status = f"broken: {error.problem}"
            else:
                status = "loads"
            table.add_row(escape(f"{registry.what} {name}"), escape(origin), escape(status))
    return table if table.row_count else None


@app.command()
def chat(
    model: Annotated[str, typer.Argument(help="Model spec, e.g. local:qwen2.5-0.5b.")],
    text: Annotated[str, typer.Argument(help="The message to send.")],
    system: Annotated[str | None, typer.Option(help="A system message to send first.")] = None,
    max_tokens: Annotated[int, typer.Option(min=1)] = 256,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the API key.")
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds per attempt.")] = 120.0,
) -> None:
    """Send one message and print the reply, token usage and latency."""
    config = ModelConfig(spec=model, api_key_env=api_key_env, timeout_s=timeout)
    check_models(config)
    runner = Runner(quiet=True)
    messages = [Message(role="system", content=system)] if system else []
    messages.append(Message(role="user", content=text))
    params = GenerationParams(max_tokens=max_tokens, temperature=temperature)
    reply = runner.model(config).chat_sync(messages, params)
    console.print(reply.text, markup=False, highlight=False)
    cost = f", ${reply.usage.cost_usd:.6f}" if reply.usage.cost_usd is not None else ""
    cut = (
        f", cut to {config.max_reply_bytes} of its {reply.truncated_from_bytes} bytes"
        if reply.truncated_from_bytes is not None
        else ""
    )
    console.print(
        f"[dim]{reply.usage.prompt_tokens} prompt + {reply.usage.completion_tokens} completion "
        f"tokens{cost}, {reply.latency_s:.2f} s, finish: {escape(str(reply.finish_reason))}"
        f"{cut}[/dim]"
    )
