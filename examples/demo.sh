#!/usr/bin/env bash
# `make demo`: dialbench end to end on the embedded local model and bundled data.
# Offline; needs no API key. Takes about 5 minutes on two cores after setup.
set -euo pipefail
cd "$(dirname "$0")/.."
dialbench=.venv/bin/dialbench
run=runs/demo
rm -rf "$run" runs/demo-sim runs/demo-dbdc

echo "== 1. data: import the bundled multilingual dialogues (validated, one transaction)"
$dialbench import "$($dialbench examples multilingual_dialogues)" --run "$run"
echo "== import a CSV with its own column names and speaker labels"
$dialbench import "$($dialbench examples speaker_turns)" --run "$run" \
  --column dialogue_id=conv --column role=speaker --column text=utterance --column language=lang \
  --role A=user --role B=assistant
echo "== import again: content-derived ids make it a no-op"
$dialbench import "$($dialbench examples multilingual_dialogues)" --run "$run"
$dialbench show "$run"
$dialbench export "$run" --format parquet

echo "== 2. models: the packaged models (sha256-verified), and one message to the default one"
$dialbench models
$dialbench chat local:qwen2.5-0.5b "你好！请用一句话介绍你自己。" --max-tokens 60

echo "== 3. simulate user-chatbot dialogues (MEDAL): validated user turns, two chatbots, en + zh"
$dialbench simulate examples/simulate_demo.yaml --run runs/demo-sim
echo "== simulate again: everything is stored, zero model calls"
$dialbench simulate examples/simulate_demo.yaml --run runs/demo-sim --quiet
$dialbench stats runs/demo-sim

echo "== 4. LLM judges: DiQAD 0/1/2 for one dialogue per language, MEDAL issues in en/zh/de"
$dialbench judge "$run" --protocol holistic --limit 1
$dialbench judge "$run" --protocol issues --language en --language zh --language de --limit 1
echo "== judge again: everything is already judged, no model call"
$dialbench judge "$run" --protocol holistic --limit 1
$dialbench report "$run"
echo "   open $run/report/index.html"

echo "== 5. meta-evaluation on real human labels: DBDC3 breakdown annotations (30 per turn, en + ja)"
dbdc="$($dialbench examples dbdc3_sample)"
$dialbench import "$dbdc" --run runs/demo-dbdc
$dialbench import "$dbdc" --records annotations --run runs/demo-dbdc
$dialbench metaeval runs/demo-dbdc --scale breakdown=ordinal:O,T,X
echo "   open runs/demo-dbdc/metaeval/report.md"
