"""Scene and persona lists from users' files: JSONL, CSV/TSV, or plain text (one per line),
in the formats of `io/registry.py` that hold texts.

The paper's sources load as they are published: Atomic10X rows (`head`/`relation`/`tail`, or the
sentence expansion in `literal` as released with SODA) and PersonaHub rows (`persona`, or
`input persona` in its synthesis subsets). Every problem names the file, line and field.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

from dialbench.errors import InputError, InputErrors
from dialbench.io.file_format import ReadRequest
from dialbench.io.registry import read_items
from dialbench.schema import Record

Axis = Literal["scene", "persona"]
TEXT_FIELDS: dict[Axis, tuple[str, ...]] = {
    "scene": ("scene", "literal", "sentence", "text"),
    "persona": ("persona", "input persona", "text"),
}
# Atomic10X relations rendered as the templated sentences of its "sentence form".
ATOMIC_RELATIONS = {
    "xAttr": "{head}. PersonX is seen as {tail}.",
    "xEffect": "{head}. As a result, PersonX {tail}.",
    "xIntent": "{head} because PersonX wanted {tail}.",
    "xNeed": "Before that, PersonX needed {tail}. {head}.",
    "xReact": "{head}. PersonX feels {tail}.",
    "xWant": "{head}. Now PersonX wants {tail}.",
    "HinderedBy": "{head}. This is hindered if {tail}.",
    "isAfter": "{head} after {tail}.",
    "isBefore": "{head} before {tail}.",
    "oEffect": "{head}. As a result, others {tail}.",
    "oReact": "{head}. Others feel {tail}.",
    "oWant": "{head}. Others want {tail}.",
}


class SeedText(Record):
    """One scene or persona, and where it came from."""

    text: str
    source: str
    line: int | None = None


def _atomic_sentence(row: dict[str, Any]) -> str | None:
    template = ATOMIC_RELATIONS.get(str(row.get("relation", "")))
    head, tail = str(row.get("head") or "").strip(), str(row.get("tail") or "").strip()
    if template is None or not head or not tail:
        return None
    return template.format(head=head.rstrip("."), tail=tail.rstrip("."))


def _text_of(row: dict[str, Any], axis: Axis) -> str | None:
    for field in TEXT_FIELDS[axis]:
        value = row.get(field)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return _atomic_sentence(row) if axis == "scene" else None


def load_seed_texts(path: str | Path, axis: Axis) -> list[SeedText]:
    """Every scene (or persona) in a file; all problems are reported together."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, f"no such {axis} file")
    texts: list[SeedText] = []
    errors: list[InputError] = []
    for line, item in read_items(path, ReadRequest("texts")):
        if isinstance(item, InputError):
            errors.append(item)
            continue
        text = _text_of(item, axis)
        if text is None:
            fields = " or ".join(TEXT_FIELDS[axis])
            extra = " (or Atomic10X head/relation/tail)" if axis == "scene" else ""
            errors.append(InputError(path, f"needs {fields}{extra}", line=line, field=axis))
        else:
            texts.append(SeedText(text=text, source=path.name, line=line))
    if errors:
        raise InputErrors(errors)
    if not texts:
        raise InputError(path, f"no {axis}s in the file")
    return texts


def starter_texts(axis: Axis) -> list[SeedText]:
    """dialbench's own small starter set, written to be culture-neutral so any language fits."""
    with resources.as_file(resources.files("dialbench.seeds") / "data" / f"{axis}s.jsonl") as p:
        return [
            t.model_copy(update={"source": f"starter:{axis}s"}) for t in load_seed_texts(p, axis)
        ]
