"""`dialbench annotate` and `dialbench serve` through the console script: annotators with their
secret links, labels out and back in (JSONL and long CSV), and user errors as one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from web_run import WebRun

from dialbench.hashing import sha256_text
from dialbench.schema import Annotation, Annotator, Target, utc_now
from dialbench.store import RunStore
from dialbench.web.server import exposure_warning
from tests.conftest import RunCli

TOKEN = re.compile(r"secret link: http://127\.0\.0\.1:8765/enter\?token=(\S+)")


def labels(web_run: WebRun) -> list[Annotation]:
    with RunStore.open(web_run.path, create=False) as store:
        return list(store.records(Annotation))


def test_add_prints_a_link_whose_token_is_stored_only_hashed(cli: RunCli, web_run: WebRun) -> None:
    done = cli(
        "annotate",
        "add",
        "dora",
        "--languages",
        "pt,ZH-hans",
        "--benchmark",
        "bench",
        "--run",
        web_run.path,
    )
    found = TOKEN.search(done.stdout)
    assert found is not None
    token = found.group(1)
    with RunStore.open(web_run.path, create=False) as store:
        (dora,) = store.records(Annotator, name="dora")
        assert dora.languages == ["pt", "zh-Hans"]
        assert dora.token_sha256 == sha256_text(token)
    assert token not in (web_run.path / "dialbench.sqlite").read_bytes().decode("latin-1")
    listed = cli("annotate", "list", "--run", web_run.path).stdout
    assert "dora" in listed
    assert token not in listed


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("alice", "--languages", "en", "--benchmark", "bench"), "'alice' already exists"),
        (("eve", "--languages", "en", "--benchmark", "nope"), "no benchmark named 'nope'"),
        (("eve", "--languages", "xx-!!", "--benchmark", "bench"), "not a valid BCP-47"),
        (("e<v>e", "--languages", "en", "--benchmark", "bench"), "name"),
    ],
)
def test_add_refuses_bad_input_in_one_line(
    cli: RunCli, web_run: WebRun, arguments: tuple[str, ...], message: str
) -> None:
    done = cli("annotate", "add", *arguments, "--run", web_run.path, ok=False)
    assert done.returncode in (1, 2)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def _label(web_run: WebRun) -> None:
    with RunStore.open(web_run.path, create=False) as store, store.run("test") as run:
        store.add(
            [
                Annotation(
                    annotator_id=name,
                    target=Target(dialogue_id=dialogue),
                    labels={
                        "issues": {"unsafe": n == 0, "repetitive": True},
                        "overall": 2 + n,
                        "user_humanlike": 4,
                    },
                    comment="很好" if n else None,
                    created_at=utc_now(),
                )
                for name in ("alice", "bob")
                for n, dialogue in enumerate(web_run.ids("en")[:2])
            ],
            run,
        )


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_labels_go_out_and_come_back_in_the_same_shape(
    cli: RunCli, web_run: WebRun, tmp_path: Path, suffix: str
) -> None:
    _label(web_run)
    before = {a.id: a.labels for a in labels(web_run)}
    exported = tmp_path / f"labels{suffix}"
    cli("annotate", "export", exported, "--run", web_run.path)
    elsewhere = tmp_path / "elsewhere"
    RunStore.open(elsewhere).close()
    done = cli("annotate", "import", exported, "--run", elsewhere)
    assert "imported 4 annotations" in done.stdout
    with RunStore.open(elsewhere, create=False) as store:
        after = {a.id: a.labels for a in store.records(Annotation)}
    assert after == before


def test_import_replaces_a_label_and_names_a_bad_line(
    cli: RunCli, web_run: WebRun, tmp_path: Path
) -> None:
    _label(web_run)
    first = web_run.ids("en")[0]
    changed = tmp_path / "changed.csv"
    changed.write_text(
        "item_id,annotator_or_judge,dimension,value,language,kind\n"
        f"{first},alice,overall,5,en,human\n",
        encoding="utf-8",
    )
    cli("annotate", "import", changed, "--run", web_run.path)
    (alice,) = [
        a for a in labels(web_run) if a.annotator_id == "alice" and a.target.dialogue_id == first
    ]
    assert alice.labels == {"overall": 5}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"annotator_id": "x", "target": {"dialogue_id": "d"}, "labels": {}}\n')
    done = cli("annotate", "import", bad, "--run", web_run.path, ok=False)
    assert done.returncode == 1
    assert f"{bad}:1: field 'labels'" in done.stderr


def test_serve_refuses_a_missing_run_and_warns_beyond_loopback(cli: RunCli, tmp_path: Path) -> None:
    done = cli("serve", tmp_path / "nothing", ok=False)
    assert done.returncode == 1
    assert "no dialbench run store here" in done.stderr
    assert exposure_warning("127.0.0.1") is None
    assert exposure_warning("localhost") is None
    warning = exposure_warning("0.0.0.0")
    assert warning is not None
    assert "listening on 0.0.0.0" in warning


def test_a_csv_of_turn_and_pair_items_imports_with_their_targets(
    cli: RunCli, web_run: WebRun, tmp_path: Path
) -> None:
    first, second = web_run.ids("en")[:2]
    rows = tmp_path / "turns.csv"
    rows.write_text(
        "item_id,annotator_or_judge,dimension,value\n"
        f"{first}#1,alice,breakdown,yes\n"
        f"{first}|{second},alice,winner,first\n"
        f"{first},alice,issues,1\n"
        f"{first},alice,issues.unsafe,1\n",
        encoding="utf-8",
    )
    done = cli("annotate", "import", rows, "--run", web_run.path, ok=False)
    assert done.returncode == 1
    assert "'issues' is both a value and a group of values" in done.stderr
    rows.write_text("\n".join(rows.read_text(encoding="utf-8").splitlines()[:3]) + "\n")
    cli("annotate", "import", rows, "--run", web_run.path)
    targets = {(a.target.kind, tuple(a.labels.items())) for a in labels(web_run)}
    assert targets == {("turn", (("breakdown", 1),)), ("pair", (("winner", "first"),))}


def test_revoke_reissue_and_list_with_last_activity(cli: RunCli, web_run: WebRun) -> None:
    _label(web_run)
    cli("annotate", "revoke", "alice", "--run", web_run.path)
    reissued = cli("annotate", "reissue", "bob", "--run", web_run.path).stdout
    found = TOKEN.search(reissued)
    assert found is not None
    with RunStore.open(web_run.path, create=False) as store:
        alice, bob = (next(store.records(Annotator, name=n)) for n in ("alice", "bob"))
    assert alice.revoked_at is not None
    assert alice.token_sha256 != sha256_text(web_run.tokens["alice"])
    assert bob.revoked_at is None
    assert bob.token_sha256 == sha256_text(found.group(1))
    listed = cli("annotate", "list", "--run", web_run.path).stdout
    rows = {line.split()[1]: line for line in listed.splitlines() if line.startswith("│ ")}
    assert "revoked" in rows["alice"]
    assert "active" in rows["bob"]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", rows["bob"])
    assert re.search(r"active\s+│\s+-\s+│", rows["carol"])  # carol labelled nothing
    done = cli("annotate", "revoke", "nobody", "--run", web_run.path, ok=False)
    assert done.returncode == 1
    assert "no annotator named 'nobody'" in done.stderr
