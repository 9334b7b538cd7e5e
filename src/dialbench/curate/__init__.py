"""Curation (MEDAL §5.1, Appendix E.1): from thousands of judged dialogues, a small balanced
benchmark per language for human experts. `api.curate` is the typed call the CLI
and the pipeline use."""
