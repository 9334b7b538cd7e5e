"""`dialbench annotate` and `dialbench serve` through the console script: annotators with their
secret links, labels out and back in (JSONL and long CSV), and user errors as one line."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from web_run import WebRun, make_web_run

from dialbench.hashing import sha256_text
from dialbench.schema import Annotation, Annotator, Dialogue, Target, Turn, utc_now
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
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test") as run:
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


def refused_import(cli: RunCli, web_run: WebRun, path: Path, rows: str) -> str:
    """What `annotate import` says of a long CSV of these rows, which it must refuse."""
    path.write_text(f"item_id,annotator_or_judge,dimension,value\n{rows}", encoding="utf-8")
    done = cli("annotate", "import", path, "--run", web_run.path, ok=False)
    assert done.returncode == 1
    return done.stderr


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_labels_go_out_and_come_back_in_the_same_shape(
    cli: RunCli, web_run: WebRun, tmp_path: Path, suffix: str
) -> None:
    _label(web_run)
    before = {a.id: a.labels for a in labels(web_run)}
    exported = tmp_path / f"labels{suffix}"
    cli("annotate", "export", exported, "--run", web_run.path)
    elsewhere = make_web_run(tmp_path / "elsewhere").path  # the same dialogues, no labels
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
    refused = refused_import(
        cli,
        web_run,
        rows,
        f"{first}#1,alice,breakdown,yes\n"
        f"{first}|{second},alice,winner,first\n"
        f"{first},alice,issues,1\n"
        f"{first},alice,issues.unsafe,1\n",
    )
    assert "'issues' is both a value and a group of values" in refused
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


def test_an_exported_csv_with_formula_characters_comes_back_as_it_was(
    cli: RunCli, web_run: WebRun, tmp_path: Path
) -> None:
    """Export marks cells a spreadsheet would run with `'`; import takes the mark off again:
    no second dialogue id or annotator, negative numbers stay numbers, dotted names stay."""
    odd = Dialogue(id="=HYPERLINK(1)", language="en", turns=[Turn(role="user", text="hi")])
    labels = {"issues": {"unsafe": True}, "overall": 2, "quality.fluency": -1, "@note": "=x"}
    for run in (web_run.path, tmp_path / "elsewhere"):
        if run != web_run.path:
            make_web_run(run)
        with RunStore.open(run, create=False) as store, store.invocation("test") as made:
            store.add([odd], made)
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test") as made:
        store.add(
            [Annotation(annotator_id="alice", target=Target(dialogue_id=odd.id), labels=labels)],
            made,
        )
    exported = tmp_path / "labels.csv"
    cli("annotate", "export", exported, "--run", web_run.path)
    text = exported.read_text(encoding="utf-8")
    assert "'=HYPERLINK(1),alice,quality.fluency,'-1.0,en,human" in text
    assert "'=HYPERLINK(1),alice,'@note,'=x,en,human" in text
    cli("annotate", "import", exported, "--run", tmp_path / "elsewhere")
    with RunStore.open(tmp_path / "elsewhere", create=False) as store:
        (back,) = store.records(Annotation)
    assert back.target.dialogue_id == odd.id
    assert back.labels == labels


def test_import_refuses_unknown_dialogues_bad_names_and_scores(
    cli: RunCli, web_run: WebRun, tmp_path: Path
) -> None:
    first = web_run.ids("en")[0]
    rows = tmp_path / "bad.csv"
    refused = refused_import(
        cli,
        web_run,
        rows,
        f"{first},alice,overall,3\n"
        "d-nowhere,alice,overall,3\n"
        f"{first},bob smith,overall,3\n"
        f"{first},carol,overall,high\n"
        f"{first},dora,issues.unsafe,maybe\n",
    )
    assert f"{rows}:3: no dialogue 'd-nowhere' in this run" in refused
    assert f"{rows}:4: annotator 'bob smith' is not a name the app can have" in refused
    assert f"{rows}:5: overall must be a number, not 'high'" in refused
    assert f"{rows}:6: issues.unsafe must be yes or no (1 or 0), not 'maybe'" in refused
    assert labels(web_run) == []


def test_serve_on_a_busy_port_says_so_before_printing_links(cli: RunCli, web_run: WebRun) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = cli("serve", web_run.path, "--port", str(port), ok=False)
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "organiser link" not in done.stdout
