"""One package per judging protocol: its module, prompt files, and optional `report.py`."""
