"""Each documented command with its typical mistake, through the real console script: a clear
line on stderr that names the problem, a non-zero exit, never a traceback. Model checks (API
keys, servers, local models) are the pre-flight's, tested with it."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dialbench import examples
from dialbench.store import STORE_FILENAME
from tests.conftest import DIALBENCH

BUNDLED = examples.bundled()
DIALOGUES = str(BUNDLED["multilingual_dialogues"])
SPEAKER_TURNS = str(BUNDLED["speaker_turns"])
PIPELINE_FAILING = "run: runs/p\nstages:\n  - stage: import\n    file: missing.jsonl\n"
GRADED_WITHOUT_RUNS = (
    "name: m\ndata: {files: [x.jsonl]}\ntarget: {dimension: b, values: {O: 1, X: 0}}\n"
)

# (what the user typed, what the first line of stderr must say)
MISTAKES: list[tuple[list[str], str]] = [
    (["import", "missing.jsonl", "--run", "runs/new"], "missing.jsonl: no such file"),
    (["import", SPEAKER_TURNS, "--run", "runs/new"], "no column 'dialogue_id' for field"),
    (
        ["import", SPEAKER_TURNS, "--column", "conv", "--run", "runs/new"],
        "not of the form KEY=VALUE",
    ),
    (["import", "folder", "--run", "runs/new"], "folder: is a folder, but not"),
    (["import", DIALOGUES, "--run", "bad.jsonl"], "bad.jsonl: is a file, not a run directory"),
    (
        ["import", str(BUNDLED["dbdc3_sample"]), "--records", "judgments"],
        "unknown file type '.zip'",
    ),
    (["validate", "bad.jsonl"], "problem(s) in bad.jsonl"),
    (["show", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["examples", "nosuch"], "no bundled example 'nosuch'"),
    (["judge", "runs/good", "--protocol", "nosuch"], "unknown protocol 'nosuch'"),
    (["judge", "runs/good", "--option", "foo=bar"], "option foo: Extra inputs are not permitted"),
    (["judge", "runs/good", "--judge", "nosuch:x"], "unknown backend 'nosuch'"),
    (["judge", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["export", "runs/good", "-o", "runs/good"], "runs/good: is a folder; give the jsonl export"),
    (["export", "runs/good", "-o", "."], ".: is a folder; give the jsonl export a file name"),
    (["export", "runs/good", "--format", "parquet", "-o", "runs"], "runs: is a folder; give the"),
    (["export", "runs/good", "--format", "hf", "-o", "folder"], "not an earlier hf export"),
    (["export", "runs/good", "-o", "bad.jsonl/out.jsonl"], "bad.jsonl: cannot write there"),
    (["export", "runs/good", "--format", "long-csv"], "holds judgments or annotations"),
    (["report", "runs/good", "-o", "bad.jsonl/report"], "bad.jsonl/report"),
    (["report", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["stats", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["run", "missing.yaml"], "missing.yaml: no such config file"),
    (["run", "bad.yaml"], "bad.yaml:2: not valid YAML"),
    (["run", "failing.yaml"], "stage import failed: missing.jsonl: no such file"),
    (["simulate", "missing.yaml"], "missing.yaml: no such config file"),
    (["simulate", "bad.yaml"], "bad.yaml:2: not valid YAML"),
    (["metaeval", "--against", "missing.csv"], "missing.csv: no such file"),
    (["metaeval", "--against", DIALOGUES], "problem(s) in"),
    (["metaeval", "runs/good", "--pair", "overall"], "--pair 'overall' is not of the form"),
    (["metaeval", "runs/good"], "nothing to meta-evaluate"),
    (["metric", "train", "missing.yaml"], "missing.yaml: no such config file"),
    (["metric", "train", "graded.yaml"], "objective 'graded' reads human labels from runs"),
    (["metric", "score", "folder", "runs/good"], "folder: not a trained metric (no metric.json)"),
    (["metric", "score", "folder", "runs/good", "--role", "bot"], "--role 'bot': choose from"),
    (["metric", "diqad", "score", "folder", "runs/good"], "not a saved DiQAD classifier"),
    (["metric", "diqad", "train", "runs/good"], "no dialogue with a 0/1/2 'quality' label"),
    (["curate", "runs/good"], "name the benchmark with --name"),
    (["curate", "runs/good", "--name", "b"], "holds no issues judgments to curate from"),
    (["arena", "runs/good"], "holds no two different self-chats"),
    (["selfchat", "runs/good"], "name at least one model: --model SPEC"),
    (["annotate", "list", "--run", "runs/missing"], "runs/missing: no dialbench run store here"),
    (
        ["annotate", "add", "ann", "--languages", "en", "--benchmark", "b", "--run", "runs/good"],
        "no benchmark named 'b'",
    ),
    (["annotate", "import", "missing.csv", "--run", "runs/good"], "missing.csv: no such file"),
    (["annotate", "export", "out.csv", "--run", "runs/good"], "no annotations to export"),
    (["batch", "wait", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["batch", "status", "runs/missing"], "runs/missing: no dialbench run store here"),
    (["chat", "nosuch:x", "hi"], "unknown backend 'nosuch'"),
    (["serve", "runs/missing"], "runs/missing: no dialbench run store here"),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the bundled dialogues, and the wrong inputs the mistakes name."""
    folder = tmp_path_factory.mktemp("mistakes")
    imported = subprocess.run(
        [str(DIALBENCH), "import", DIALOGUES, "--run", "runs/good"], cwd=folder, check=False
    )
    assert imported.returncode == 0
    (folder / "bad.jsonl").write_text('{"a": 1}\n')
    (folder / "bad.yaml").write_text("stages: [\n")
    (folder / "failing.yaml").write_text(PIPELINE_FAILING)
    (folder / "graded.yaml").write_text(GRADED_WITHOUT_RUNS)
    (folder / "folder").mkdir()
    (folder / "folder" / "notes.txt").write_text("kept\n")
    return folder


@pytest.fixture(scope="module")
def outcomes(workspace: Path) -> list[subprocess.CompletedProcess[str]]:
    """Every mistake made, three at a time: each is mostly a process starting."""

    def make(args: list[str]) -> subprocess.CompletedProcess[str]:
        command = [str(DIALBENCH), *args]
        return subprocess.run(
            command, cwd=workspace, capture_output=True, text=True, timeout=300, check=False
        )

    with ThreadPoolExecutor(max_workers=3) as pool:
        return list(pool.map(make, (args for args, _ in MISTAKES)))


@pytest.mark.parametrize(
    ("index", "expected"),
    [(n, expected) for n, (_, expected) in enumerate(MISTAKES)],
    ids=[f"{n}-{'-'.join(args[:2])}" for n, (args, _) in enumerate(MISTAKES)],
)
def test_a_typical_mistake_is_one_clear_line(
    workspace: Path, outcomes: list[subprocess.CompletedProcess[str]], index: int, expected: str
) -> None:
    done = outcomes[index]
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    first = done.stderr.splitlines()[0] if done.stderr else ""
    assert first.startswith("error: "), done.stderr
    assert expected in first, done.stderr


def test_no_mistake_wrote_over_what_was_there(
    workspace: Path, outcomes: list[subprocess.CompletedProcess[str]]
) -> None:
    """`export -o RUN` and `export -o .` once deleted the folder, run store and all."""
    assert len(outcomes) == len(MISTAKES)
    assert (workspace / "runs" / "good" / STORE_FILENAME).is_file()
    assert (workspace / "folder" / "notes.txt").is_file()
    assert (workspace / "bad.jsonl").read_text() == '{"a": 1}\n'
