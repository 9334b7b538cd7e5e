#!/usr/bin/env bash
# Rebuild baseline/: run benchmark.yaml on the FAQ bot as it is now and keep the run's dialogues
# and judgments as JSONL (text a pull request can show, a few dozen KB, where the run's SQLite
# file would be a binary of some hundred KB). `dialbench check` compares a new run against it
# after `dialbench import` (docs/comparing.md). Takes some minutes on the packaged models.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf runs/baseline
dialbench run benchmark.yaml --run runs/baseline
dialbench export runs/baseline --records dialogues --output baseline/dialogues.jsonl
dialbench export runs/baseline --records judgments --output baseline/judgments.jsonl
