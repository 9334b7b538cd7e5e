"""Every `dialbench` command by name, in the order `dialbench --help` lists them: the module
under `cli/` that defines it, and the first paragraph of its help. The top-level help is printed
from this table, so that it imports no command module (and none of the features and libraries
they load); tests/test_cli.py holds it equal to the commands the modules define."""

from __future__ import annotations

from typing import NamedTuple


class Listed(NamedTuple):
    """A command as the top-level help lists it, and where it is defined."""

    name: str
    module: str
    summary: str  # the help's first paragraph as its docstring has it (read by inspect.cleandoc)


_LISTED = (
    Listed(
        "judge",
        "judge",
        """
    Judge the run's dialogues under one protocol with one or more judges.""",
    ),
    Listed(
        "arena",
        "arena",
        """
    Judge every pair of self-chats from the same ChatSEED and length in both orders (the
    Arena prompt), then print the bootstrap ELO and Bradley-Terry ratings with 95 % intervals
    and UniEval pass@N. A re-run judges nothing already judged. `dialbench report RUN` shows
    every BotChat table and figure with its definitions.""",
    ),
    Listed(
        "calibrate",
        "calibrate",
        """
    Fit a monotone map from each judge's answers to the humans' (isotonic onto ordered labels
    and scores, a threshold for binary ones) per dimension and language, cross-validated over
    dialogues; store the calibrated judgments beside the raw ones, for metaeval to compare.""",
    ),
    Listed(
        "panel",
        "panel",
        """
    Several judges of one protocol as one rater, `panel:NAME`: by majority, median, or a vote
    weighted by each judge's agreement with the humans per language; prints the judges'
    agreement per language and warns where a judge shares a model family with a chatbot.""",
    ),
    Listed(
        "compare",
        "compare",
        """
    The candidate (RUN_B) against the baseline (RUN_A), per protocol, judge, dimension and
    language, on the seeds both ran: difference = candidate − baseline with its 95% interval,
    p-values corrected over the table; `holds` says which differences are real.""",
    ),
    Listed(
        "check",
        "check",
        """
    Is RUN (the candidate) significantly worse than the baseline anywhere, by more than the
    margin allowed there? Default margin: 3% of each figure's scale (0.03 on a rate, 0.12 on
    1-5, 0.06 on 0-2). With --judge-card, does a judge obey injections more than allowed?
    Exit 0: no regression; 1: a regression (or a judge that obeys); 2: nothing to compare.""",
    ),
    Listed(
        "curate",
        "curate",
        """
    Exclude dialogues the judge found mixed-language, then pick per language one issue-free,
    top-scored dialogue per user x chatbot pair and, issue by issue, dialogues that balance the
    overall scores and chatbots. Same arguments, same benchmark; writes RUN/benchmarks/NAME/.""",
    ),
    Listed(
        "metaeval",
        "metaeval",
        """
    Agreement, correlations, detection (issues, labels), McNemar and diagnostics vs. human
    annotators.""",
    ),
    Listed(
        "probe",
        "probe",
        """
    Judge bundled dialogues clean and with text that addresses the judge (an instruction,
    a forged verdict, a fake transcript end, role tags, another language, hidden markup) in a
    chatbot turn, a user turn or a tool result, and with a harmless aside there (the control);
    print how far the verdicts move, and the judge's card.""",
    ),
    Listed(
        "models",
        "models",
        """
    List the packaged local models (installed or not, size, sha256 status) and the backends,
    plugins' included.""",
    ),
    Listed(
        "chat",
        "models",
        """
    Send one message and print the reply, token usage and latency.""",
    ),
    Listed(
        "import",
        "records",
        """
    Validate a whole file, then store its records in batches: nothing from a file with
    errors; a killed import, run again, adds the rest. Memory does not grow with the file.""",
    ),
    Listed(
        "validate",
        "records",
        """
    Check a file as `import` would, without storing anything.""",
    ),
    Listed(
        "sample",
        "records",
        """
    Copy a seeded sample of SOURCE's dialogues, stratified by language and length (words;
    characters for Chinese and Japanese) with their judgments and annotations, into DESTINATION:
    judge, annotate and metaeval work on the sample, `metric score SOURCE` on all.""",
    ),
    Listed(
        "export",
        "records",
        """
    Write stored records as JSONL, Parquet or a Hugging Face dataset folder, or judgments and
    annotations as long-csv: item_id, annotator_or_judge, dimension, value, language, kind.""",
    ),
    Listed(
        "show",
        "records",
        """
    Summarise a run: dialogues by language, source and model; judgments by protocol.""",
    ),
    Listed(
        "examples",
        "records",
        """
    List the example files bundled with dialbench (paths to pass to `import`).""",
    ),
    Listed(
        "report",
        "report",
        """
    Write the report: issue heatmaps, distributions per language, judges' unscored rates and
    cost, dataset statistics; every rate with its count.""",
    ),
    Listed(
        "run",
        "run",
        """
    Run a pipeline's stages (import, simulate, selfchat, judge, arena, metaeval, report, ...):
    each as soon as the stages it reads from are done, stages that do not depend on each other
    side by side. A stage already done with the same settings and inputs is skipped; change one
    stage and it reruns with what depends on it. Ctrl-C stops cleanly; run again to resume.
    With --executor ray, stages that work per dialogue run as shards on Ray tasks.""",
    ),
    Listed(
        "selfchat",
        "selfchat",
        """
    Self-chat: each model continues each ChatSEED to N utterances (BotChat Algorithm 1).""",
    ),
    Listed(
        "replay",
        "replay",
        """
    Replay recorded dialogues with a candidate chatbot: its reply on each recorded prefix,
    tool calls answered from the recording, stored beside the recorded dialogue and paired with
    it, so judge, compare and check work on recorded against candidate.""",
    ),
    Listed(
        "serve",
        "serve",
        """
    Serve the web app: the organiser browses dialogues, judgments, labels and the report;
    annotators label their benchmark through their secret links (or, with --review, review a
    judge's verdicts on it).""",
    ),
    Listed(
        "simulate",
        "simulate",
        """
    Simulate user-chatbot dialogues (contexts x users x chatbots x languages); resumable.""",
    ),
    Listed(
        "stats",
        "stats",
        """
    Dialogues per language, turns, utterance length, lexical diversity, validator acceptance
    per turn, end reasons, and tokens and cost per role (MEDAL Table 3 and more); once judged,
    every chatbot figure with its 95% interval and its number of seeds.""",
    ),
    Listed(
        "annotate",
        "annotate",
        """
    Annotators of a benchmark, reviewers of a judge, and their labels.""",
    ),
    Listed(
        "audit",
        "audit",
        """
    Probability samples of judged dialogues for human labels that correct the figures.""",
    ),
    Listed(
        "batch",
        "batch",
        """
    Provider batches submitted by `dialbench judge --batch`.""",
    ),
    Listed(
        "metric",
        "metric",
        """
    Trained turn-level metrics (frozen multilingual encoder + small head).""",
    ),
)
COMMANDS: dict[str, Listed] = {listed.name: listed for listed in _LISTED}
