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
        ImportResult,
        check_file,
        import_file,
        load_records,
    )
    from dialbench.schema import (
        Annotation,
        Dialogue,
        GenerationAttempt,
        Invocation,
        JudgeConfiguration,
        Judgment,
        Participants,
        Provenance,
        SeedContext,
        Target,
        Turn,
        Usage,
    )
    from dialbench.store import RunStore
    from dialbench.store_contents import StoreContents, count_contents
    from dialbench.version import __version__

__all__ = [
    "Annotation",
    "DialbenchError",
    "Dialogue",
    "GenerationAttempt",
    "ImportOptions",
    "ImportResult",
    "InputError",
    "InputErrors",
    "Invocation",
    "JudgeConfiguration",
    "Judgment",
    "Participants",
    "Provenance",
    "RunStore",
    "SeedContext",
    "StoreContents",
    "Target",
    "Turn",
    "Usage",
    "__version__",
    "check_file",
    "count_contents",
    "export_records",
    "import_file",
    "load_records",
]

__getattr__ = lazy_exports(
    __name__,
    {
        ".errors": ["DialbenchError", "InputError", "InputErrors"],
        ".io.exporter": ["export_records"],
        ".io.importer": [
            "ImportOptions", "ImportResult", "check_file", "import_file", "load_records",
        ],
        ".schema": [
            "Annotation", "Dialogue", "GenerationAttempt", "JudgeConfiguration", "Judgment",
            "Participants", "Provenance", "Invocation", "SeedContext", "Target", "Turn", "Usage",
        ],
        ".store": ["RunStore"],
        ".store_contents": ["StoreContents", "count_contents"],
        ".version": ["__version__"],
    },
)  # fmt: skip
