"""OTLP JSON, as OpenTelemetry's exporters write traces: `{"resourceSpans": [{"resource",
"scopeSpans": [{"spans": [...]}]}]}`, attributes as lists of keyed AnyValues, times in
nanoseconds. What any reader of OTLP spans needs, whichever conventions the spans follow.
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


def spans(record: dict[str, Any], where: Where) -> Iterator[tuple[Any, dict[str, Any], Where]]:
    """Each span of a traces document (as it stands, not yet checked), with its resource's
    attributes and where it is."""
    where = where / "resourceSpans"
    batches = record.get("resourceSpans")
    if not isinstance(batches, list):
        raise where.error("not OTLP JSON traces: no list of resourceSpans")
    for i, batch in enumerate(batches):
        at = where / i
        if not isinstance(batch, dict):
            raise at.error(f"expected an object, got {type(batch).__name__}")
        resource = batch.get("resource") or {}
        shared = attributes(resource.get("attributes"), at / "resource" / "attributes")
        for j, scope in enumerate(batch.get("scopeSpans") or []):
            found = scope.get("spans") if isinstance(scope, dict) else None
            for k, span in enumerate(found or []):
                yield span, shared, at / "scopeSpans" / j / "spans" / k
