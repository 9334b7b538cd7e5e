"""OTLP JSON, as OpenTelemetry's exporters write traces and logs: `{"resourceSpans":
[{"resource", "scopeSpans": [{"spans": [...]}]}]}`, `{"resourceLogs": [{"resource", "scopeLogs":
[{"logRecords": [...]}]}]}`, attributes as lists of keyed AnyValues, times in nanoseconds. What
any reader of OTLP needs, whichever conventions the spans and events follow.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from dialbench.io.chat_messages import Where


def any_value(value: Any) -> Any:
    """An OTLP JSON AnyValue as a plain value."""
    if not isinstance(value, dict):
        return value
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        pairs = (value["kvlistValue"] or {}).get("values", [])
        return {pair.get("key"): any_value(pair.get("value")) for pair in pairs}
    if "intValue" in value:
        return int(value["intValue"])
    if "bytesValue" in value:
        return base64.b64decode(value["bytesValue"]).hex()
    for kind in ("stringValue", "boolValue", "doubleValue"):
        if kind in value:
            return value[kind]
    return None


def attributes(raw: Any, where: Where) -> dict[str, Any]:
    """A list of OTLP attributes as a dict of plain values."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise where.error(f"expected a list of attributes, got {type(raw).__name__}")
    found = {}
    for index, pair in enumerate(raw):
        if not isinstance(pair, dict) or not isinstance(pair.get("key"), str):
            raise (where / index).error("an attribute with no key")
        found[pair["key"]] = any_value(pair.get("value"))
    return found


def nanos(value: Any) -> float | None:
    """A time in nanoseconds since the epoch (a string or a number, as exporters write it), in
    seconds."""
    try:
        return int(value) / 1e9
    except (TypeError, ValueError):
        return None


# The signals an OTLP JSON file may hold, each a top-level list: a Collector's file exporter
# used in several pipelines writes records of each into one file.
OTHER_SIGNALS = {"resourceMetrics": "OTLP metrics records", "resourceProfiles": "OTLP profiles"}
SIGNALS = frozenset({"resourceSpans", "resourceLogs", *OTHER_SIGNALS})
ITEMS = {"resourceSpans": ("scopeSpans", "spans"), "resourceLogs": ("scopeLogs", "logRecords")}


def signals(
    record: dict[str, Any], where: Where, signal: str
) -> Iterator[tuple[Any, dict[str, Any], Where]]:
    """Each span (`resourceSpans`) or log record (`resourceLogs`) of a document, as it stands
    (not yet checked), with its resource's attributes and where it is; none where the
    document holds no such signal."""
    if signal not in record:
        return
    where = where / signal
    batches = record[signal]
    if not isinstance(batches, list):
        raise where.error(f"expected a list of {signal}, got {type(batches).__name__}")
    scopes, items = ITEMS[signal]
    for i, batch in enumerate(batches):
        at = where / i
        if not isinstance(batch, dict):
            raise at.error(f"expected an object, got {type(batch).__name__}")
        resource = batch.get("resource") or {}
        shared = attributes(resource.get("attributes"), at / "resource" / "attributes")
        for j, scope in enumerate(batch.get(scopes) or []):
            found = scope.get(items) if isinstance(scope, dict) else None
            for k, item in enumerate(found or []):
                yield item, shared, at / scopes / j / items / k


def _objects(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def scope_names(record: Any) -> set[str]:
    """The names of the instrumentation scopes whose spans or log records a document holds
    (what tells the library that wrote it)."""
    if not isinstance(record, dict):
        return set()
    names = set()
    for signal, (scopes, _) in ITEMS.items():
        for batch in _objects(record.get(signal)):
            for scope in _objects(batch.get(scopes)):
                name = (scope.get("scope") or {}).get("name")
                names.update([name] if isinstance(name, str) else [])
    return names


def nested(attributes: dict[str, Any], prefix: str) -> list[Any]:
    """What conventions flatten into indexed attributes (OpenLLMetry's `gen_ai.prompt.0.role`,
    `gen_ai.prompt.0.tool_calls.1.name`; OpenInference's `llm.input_messages.0.message.role`)
    as the list of objects it was, in index order: a level whose keys are all numbers is a
    list. A key both a value and a parent (never written so) keeps its value."""
    tree: dict[str, Any] = {}
    for key, value in attributes.items():
        if not key.startswith(prefix):
            continue
        *parents, leaf = key.removeprefix(prefix).split(".")
        node: Any = tree
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node.setdefault(leaf, value)
    listed = _listed(tree)
    return listed if isinstance(listed, list) else []


def _listed(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(key.isdigit() for key in node):
        return [_listed(node[key]) for key in sorted(node, key=int)]
    return {key: _listed(value) for key, value in node.items()}
