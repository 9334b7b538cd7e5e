#!/usr/bin/env bash
# `make demo`: the quickstart pipeline on the packaged local models, offline, no API key.
set -euo pipefail
cd "$(dirname "$0")/.."
dialbench=.venv/bin/dialbench
run=runs/quickstart
rm -rf "$run"

echo "== the plan: model calls, tokens and time of every stage, before running anything"
COLUMNS=${COLUMNS:-160} $dialbench run examples/quickstart.yaml --dry-run
echo "== run it: import, MEDAL simulation, BotChat self-chat, judges, Arena, meta-evaluation, report"
$dialbench run examples/quickstart.yaml
echo "== run it again: every stage is up to date, no model call"
$dialbench run examples/quickstart.yaml
$dialbench show "$run"
echo "== your run's figures, those the README quotes: the local models compute with your CPU's"
echo "   instruction set, so on another CPU than the README's the dialogues and figures differ"
.venv/bin/python benchmarks/quickstart_figures.py "$run"
echo "open $run/report/index.html (the report) and $run/metaeval/report.md (judge vs. humans);"
echo "browse every dialogue and judgment, and annotate the curated benchmark: $dialbench serve $run"
