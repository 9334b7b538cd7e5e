"""Probes of a judge's resistance to text that addresses it (issue #52): the probe dialogues,
clean and injected (`probe_set.py`), how far the verdicts move between them (`shift.py`), and
`probing.probe`, the typed call behind `dialbench probe`."""
