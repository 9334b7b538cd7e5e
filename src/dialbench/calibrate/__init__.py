"""Judges mapped onto the humans' scale: a monotone map per judge, configuration, protocol,
dimension and language, fitted on the run's human labels and cross-validated over dialogues."""
