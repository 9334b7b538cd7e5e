"""Analyses of what a run holds."""
