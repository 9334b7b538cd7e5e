"""The report's issue tables link each figure to the dialogues behind it, relative to where
`dialbench serve` serves the report (/report/), and the filtered list finds exactly those."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl

from web_run import ORGANISER_TOKEN, Client, WebRun

from dialbench.report.writer import write_report
from dialbench.store import RunStore

LINK = re.compile(r'<a href="\.\./dialogues\?([^"]*)">([^<]*)</a>')
MATCHED = re.compile(r"(\d+) dialogue\(s\) match")


def test_every_issue_figure_links_to_its_dialogues(client: Client, web_run: WebRun) -> None:
    with RunStore.open(web_run.path, create=False) as store:
        write_report(store, web_run.path / "report")
    page = (web_run.path / "report" / "index.html").read_text(encoding="utf-8")
    links = [(dict(parse_qsl(html.unescape(q))), text) for q, text in LINK.findall(page)]
    flagged_zh = {"protocol": "issues", "judge": "judge-x", "language": "zh"}
    assert ({**flagged_zh, "issue": "lacks_empathy"}, "50% (1/2)") in links
    assert ({**flagged_zh, "chatbot": "bot-b", "issue": "lacks_empathy"}, "100%") in links
    assert "<img src=x" not in page  # the hostile chatbot name, escaped in the linked tables
    organiser = client(ORGANISER_TOKEN)
    for filters, text in links:
        listing = organiser.get("/dialogues", params=filters).text
        found = MATCHED.search(listing)
        assert found is not None, listing
        matched = int(found.group(1))
        if "/" in text:  # "50% (1/2)": the flagged dialogues
            assert matched == int(text.split("(")[1].split("/")[0]), (filters, text)
        elif text.isdigit():  # the items a judge scored
            assert matched == int(text), (filters, text)
