"""The web app: organisers browse a run's dialogues and judgments, annotators label a benchmark."""
