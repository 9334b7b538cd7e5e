"""dialbench: benchmark LLMs as multilingual open-domain chatbots and as dialogue evaluators.

The Python API below is what the `dialbench` command wraps; everything the CLI does, a script
can do with these names. Each is imported when first used (`dialbench.Dialogue`, or
`from dialbench import RunStore`), so that `import dialbench.errors` and every command start
without the records, the store and their libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.errors import DialbenchError, InputError, InputErrors
    from dialbench.io.exporter import export_records
    from dialbench.io.importer import (
        ImportOptions,
        ImportReport,
        check_file,
        import_file,
        load_records,
    )
    from dialbench.schema import (
        Annotation,
        Dialogue,
        GenerationAttempt,
        JudgeConfiguration,
        Judgment,
        Participants,
        Provenance,
        Run,
        SeedContext,
        Target,
        Turn,
        Usage,
    )
    from dialbench.store import RunStore
    from dialbench.summary import StoreSummary, summarize
    from dialbench.version import __version__

__all__ = [
    "Annotation",
    "DialbenchError",
    "Dialogue",
    "GenerationAttempt",
    "ImportOptions",
    "ImportReport",
    "InputError",
    "InputErrors",
    "JudgeConfiguration",
    "Judgment",
    "Participants",
    "Provenance",
    "Run",
    "RunStore",
    "SeedContext",
    "StoreSummary",
    "Target",
    "Turn",
    "Usage",
    "__version__",
    "check_file",
    "export_records",
    "import_file",
    "load_records",
    "summarize",
]

__getattr__ = lazy_exports(
    __name__,
    {
        ".errors": ["DialbenchError", "InputError", "InputErrors"],
        ".io.exporter": ["export_records"],
        ".io.importer": [
            "ImportOptions", "ImportReport", "check_file", "import_file", "load_records",
        ],
        ".schema": [
            "Annotation", "Dialogue", "GenerationAttempt", "JudgeConfiguration", "Judgment",
            "Participants", "Provenance", "Run", "SeedContext", "Target", "Turn", "Usage",
        ],
        ".store": ["RunStore"],
        ".summary": ["StoreSummary", "summarize"],
        ".version": ["__version__"],
    },
)  # fmt: skip
