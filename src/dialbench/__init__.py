"""dialbench: benchmark LLMs as multilingual open-domain chatbots and as dialogue evaluators.

The Python API below is what the `dialbench` command wraps; everything the CLI does, a script
can do with these names.
"""

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
