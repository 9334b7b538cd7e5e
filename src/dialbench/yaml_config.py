"""Config files in YAML, validated into a record, with every problem located at its line and
field (`config.yaml:12: field 'chatbots.models.0': ...`), so a typo is found at once."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import ValidationError

from dialbench.errors import DialbenchError, InputError
from dialbench.io.text import decode_utf8
from dialbench.io.validation import describe_error
from dialbench.schema import Record

R = TypeVar("R", bound=Record)


def _line_of(node: yaml.Node, loc: tuple[int | str, ...]) -> int:
    """The line (1-based) of the YAML node at a pydantic error location, or its nearest parent.
    A part that names no key is skipped: pydantic puts a tagged union's tag (`judge` in
    `stages.0.judge.protocol`) in the location, not in the file."""
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == part), None)
            if child is None:
                continue
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            child = node.value[part]
        else:
            break
        node = child
    return node.start_mark.line + 1


def require_config_file(path: Path) -> None:
    """Refuse a config file that is not there, before a command loads what it would run."""
    if not path.is_file():
        raise InputError(path, "no such config file")


def load_yaml_config(path: str | Path, record_type: type[R], what: str, keys: str) -> R:
    """The file as a `record_type`; `what` and `keys` name it in errors ("a simulation config",
    "languages:, chatbots:, ...")."""
    path = Path(path)
    require_config_file(path)
    text = decode_utf8(path.read_bytes(), path)
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(error, "problem", None) or str(error)
        raise InputError(path, f"not valid YAML ({problem})", line=line) from None
    if not isinstance(data, dict) or root is None:
        raise InputError(path, f"{what} is a YAML mapping ({keys})")
    try:
        return record_type.model_validate(data)
    except ValidationError as invalid:
        errors = []
        for problem in invalid.errors():
            field, message = describe_error(problem)
            errors.append(
                InputError(path, message, line=_line_of(root, problem["loc"]), field=field)
            )
        raise DialbenchError("\n".join(map(str, errors))) from None
