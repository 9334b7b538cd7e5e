"""Meta-evaluation: how close each judge or metric is to human annotators, per label, language."""
