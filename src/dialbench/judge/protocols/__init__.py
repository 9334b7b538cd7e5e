"""One package per judging protocol: its module and its prompt and example files."""
