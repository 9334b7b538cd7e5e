"""Errors a user can act on. The CLI prints their message and exits non-zero, never a traceback."""


class DialbenchError(Exception):
    """Base of every error dialbench reports to a user as a plain message."""
