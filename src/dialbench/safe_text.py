"""Data values written into formats that would otherwise act on them: spreadsheets and markdown.

Names of models, sources and dimensions come from users' files and model specs, so a CSV cell or
a markdown table may hold `=HYPERLINK(...)` or `<script>`; a URL path in a log line may hold an
ANSI escape. (Terminal output escapes rich markup with `rich.markup.escape`; the HTML report is
escaped by its Jinja templates.)
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# OWASP CSV injection: a spreadsheet reads a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# Not `_`: names are full of intraword underscores (gpt_4), which markdown leaves alone.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]|])")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def spreadsheet_cell(value: object) -> object:
    """A text cell a spreadsheet shows as text: one that would start a formula gets a leading
    `'` (the spreadsheet's own "this is text" mark). Numbers and other values are unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def from_spreadsheet_cell(text: str) -> str:
    """A cell as it was before `spreadsheet_cell` marked it: files dialbench wrote come back in
    without the `'` (a name or a negative number stays what it was)."""
    if text.startswith("'") and text[1:].startswith(FORMULA_TRIGGERS):
        return text[1:]
    return text


def terminal_text(text: str) -> str:
    """Text a terminal or log file shows as it is: control characters (newlines, ANSI escapes,
    bidirectional overrides) written as escapes, so no one can forge a line or recolour one."""
    return _CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def short_text(text: str, limit: int) -> str:
    """A text shown in a table cell: on one line (runs of whitespace, newlines among them, one
    space; other control characters as `terminal_text` writes them), cut to its first `limit`
    characters with `…` and its whole length when longer. Escaping for the cell's format is
    still the writer's (`spreadsheet_frame`, `markdown_frame`, HTML autoescape)."""
    flat = terminal_text(" ".join(text.split()))
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit].rstrip()}… [{len(flat):,} characters]"


def spreadsheet_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`spreadsheet_cell` on every cell, and on the column names, before `to_csv`."""
    safe = frame.map(spreadsheet_cell)
    safe.columns = [str(spreadsheet_cell(str(c))) for c in frame.columns]
    return safe


def markdown_text(value: str) -> str:
    """Text that markdown shows as it is: HTML tags and entities as text, no links, images or
    code, no table-cell break (`|`, newline)."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(value, quote=False))
    return " ".join(escaped.splitlines())


def markdown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`markdown_text` on every text cell and column name, before `to_markdown`."""
    safe = frame.map(lambda v: markdown_text(v) if isinstance(v, str) else v)
    safe.columns = [markdown_text(str(c)) for c in frame.columns]
    return safe
