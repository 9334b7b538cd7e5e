"""One module per pipeline stage kind; `pipeline/registry.py` lists them."""
