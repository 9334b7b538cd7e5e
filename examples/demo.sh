#!/usr/bin/env bash
# `make demo`: dialbench's end-to-end path on bundled data. Offline; needs no API key.
set -euo pipefail
cd "$(dirname "$0")/.."
dialbench=.venv/bin/dialbench
run=runs/demo
rm -rf "$run" runs/demo-dbdc

echo "== import the bundled multilingual dialogues (validated, one transaction)"
$dialbench import "$($dialbench examples multilingual_dialogues)" --run "$run"
echo "== import a CSV with its own column names and speaker labels"
$dialbench import "$($dialbench examples speaker_turns)" --run "$run" \
  --column dialogue_id=conv --column role=speaker --column text=utterance --column language=lang \
  --role A=user --role B=assistant
echo "== import again: content-derived ids make it a no-op"
$dialbench import "$($dialbench examples multilingual_dialogues)" --run "$run"

echo "== what the run holds"
$dialbench show "$run"

echo "== export for analysis and publication"
$dialbench export "$run" --format jsonl
$dialbench export "$run" --format parquet
$dialbench export "$run" --format hf

echo "== meta-evaluation on real human labels: DBDC3 breakdown annotations (30 per turn, en + ja)"
dbdc="$($dialbench examples dbdc3_sample)"
$dialbench import "$dbdc" --run runs/demo-dbdc
$dialbench import "$dbdc" --records annotations --run runs/demo-dbdc
$dialbench metaeval runs/demo-dbdc --scale breakdown=ordinal:O,T,X
