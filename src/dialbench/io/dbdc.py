"""The Dialogue Breakdown Detection Challenge 3 data (a .zip, or its unpacked folder).

Each `*.log.json` is one human-chatbot dialogue whose system turns carry 30 annotators' breakdown
labels (O = no breakdown, T = possible, X = breakdown). Dialogues and annotations are imported
separately (`--records dialogues`, then `--records annotations`); where the organisers revised a
dialogue's annotations after the challenge (`dbdc3_revised`), the revised file is used.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from dialbench.errors import InputError
from dialbench.io.file_format import FileFormat, Item, ReadRequest

ROLES = {"U": "user", "S": "assistant"}
SUFFIX = ".log.json"
RELEASES = ("dbdc3_revised", "dbdc3")


def _members(path: Path) -> dict[str, bytes]:
    """Name -> bytes of every dialogue file, keeping the revised release where both exist."""
    if path.is_dir():
        files = {str(f.relative_to(path)): f.read_bytes() for f in path.rglob(f"*{SUFFIX}")}
    else:
        try:
            with zipfile.ZipFile(path) as archive:
                files = {n: archive.read(n) for n in archive.namelist() if n.endswith(SUFFIX)}
        except zipfile.BadZipFile as bad:
            raise InputError(path, f"not a readable zip archive ({bad})") from None
    chosen: dict[tuple[str, ...], str] = {}
    for name in sorted(files, key=lambda n: ("dbdc3_revised" not in n, n)):
        parts = PurePosixPath(name).parts
        release = next((p for p in parts if p in RELEASES), None)
        if release is None:
            continue
        key = parts[parts.index(release) + 1 :]
        chosen.setdefault(key, name)
    if not chosen:
        raise InputError(
            path, f"no DBDC3 dialogue files (*{SUFFIX} under dbdc3/ or dbdc3_revised/)"
        )
    return {name: files[name] for name in sorted(chosen.values())}


def _parse(path: Path, name: str, data: bytes) -> dict[str, Any] | InputError:
    where = f"{path}!{name}"
    try:
        log = json.loads(data.decode("utf-8"))
        dialogue_id = "dbdc3:" + str(log["dialogue-id"])
        turns = log["turns"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as bad:
        return InputError(where, f"not a DBDC3 dialogue log ({bad})")
    parts = PurePosixPath(name).parts
    release = next(p for p in parts if p in RELEASES)
    language, split, dataset = parts[parts.index(release) + 1 : parts.index(release) + 4]
    for index, turn in enumerate(turns):
        if turn.get("speaker") not in ROLES:
            return InputError(
                where, f"unknown speaker {turn.get('speaker')!r}", field=f"turns.{index}"
            )
    return {
        "id": dialogue_id,
        "language": language,
        "source": "dbdc3",
        "turns": [{"role": ROLES[t["speaker"]], "text": t["utterance"]} for t in turns],
        "metadata": {"dataset": dataset, "split": split, "release": release},
        "annotations": [
            {
                "annotator_id": "dbdc3:" + str(a["annotator-id"]),
                "target": {"dialogue_id": dialogue_id, "turn_index": index},
                "labels": {"breakdown": a["breakdown"]},
                "comment": a.get("comment") or None,
            }
            for index, turn in enumerate(turns)
            for a in turn.get("annotations", [])
        ],
    }


def _dialogues(path: Path) -> Iterator[Item]:
    for name, data in _members(path).items():
        parsed = _parse(path, name, data)
        if isinstance(parsed, dict):
            parsed.pop("annotations")
        yield None, parsed


def _annotations(path: Path) -> Iterator[Item]:
    for name, data in _members(path).items():
        parsed = _parse(path, name, data)
        if isinstance(parsed, InputError):
            yield None, parsed
        else:
            for annotation in parsed["annotations"]:
                yield None, annotation


def read_dbdc(path: Path, request: ReadRequest) -> Iterator[Item]:
    return _annotations(path) if request.content == "annotations" else _dialogues(path)


def _is_dbdc_folder(path: Path) -> bool:
    return any(path.rglob(f"*{SUFFIX}"))


DBDC3 = FileFormat(
    "dbdc3",
    "DBDC3 data",
    holds=("dialogues", "annotations"),
    read=read_dbdc,
    suffixes=(".zip",),
    recognises_folder=_is_dbdc_folder,
)
