"""dialbench."""
