"""The chatbot-evaluation report: tables, plots and one static HTML page from a run store."""
