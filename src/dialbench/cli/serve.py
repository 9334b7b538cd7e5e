"""`dialbench serve`: the web app for browsing a run and annotating its benchmarks."""

from __future__ import annotations

import logging
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, StoredRun
from dialbench.errors import DialbenchError

console = Console(stderr=True)


@app.command()
def serve(
    run: StoredRun = DEFAULT_RUN,
    host: Annotated[
        str, typer.Option(help="Address to listen on; beyond 127.0.0.1 it warns.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    overlap: Annotated[
        int | None,
        typer.Option(help="Annotators per dialogue; default every annotator of its language."),
    ] = None,
    gold: Annotated[
        str | None,
        typer.Option(help="Annotator whose labels are gold: shown to all, scored against."),
    ] = None,
    review: Annotated[
        str | None,
        typer.Option(
            metavar="PROTOCOL",
            help="Annotators review this protocol's judge: agree, disagree or correct each "
            "verdict on their benchmark's dialogues (with no benchmark, on every dialogue it "
            "judged in their languages).",
        ),
    ] = None,
    review_judge: Annotated[
        str | None,
        typer.Option(
            metavar="SPEC",
            help="The judge to review: SPEC, or 'SPEC \\[c-…]' where it judged under several "
            "configurations. Default: the protocol's only one.",
        ),
    ] = None,
) -> None:
    """Serve the web app: the organiser browses dialogues, judgments, labels and the report;
    annotators label their benchmark through their secret links (or, with --review, review a
    judge's verdicts on it)."""
    from dialbench.web.annotators import AssignmentSettings
    from dialbench.web.review_task import ReviewChoice

    try:
        from dialbench.web.server import ServeConfig, port_in_use, prepare, uvicorn_server
    except ModuleNotFoundError as missing:
        raise DialbenchError(
            f"dialbench serve needs {missing.name}: pip install 'dialbench[web]'"
        ) from None

    if review_judge is not None and review is None:
        raise DialbenchError("--review-judge names the judge of a review: give --review PROTOCOL")
    config = ServeConfig(
        host=host,
        port=port,
        assignment=AssignmentSettings(overlap=overlap, gold_annotator=gold),
        review=ReviewChoice(protocol=review, judge=review_judge) if review else None,
    )
    web_app, serving = prepare(run, config)  # a run or a review it cannot serve stops here
    if port_in_use(host, port):
        raise DialbenchError(
            f"port {port} on {host} is in use (another dialbench serve?): stop it, or choose "
            "another with --port"
        )
    if serving.warning:
        console.print(f"warning: {serving.warning}", style="bold red", markup=False)
    print(f"dialbench serving {run} at {serving.url}", flush=True)
    print(f"organiser link (secret, valid until stopped): {serving.organiser_link}", flush=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    uvicorn_server(web_app, config.host, config.port).run()
