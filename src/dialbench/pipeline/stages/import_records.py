"""Importing a file (or a bundled example) into the run as a pipeline stage."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from dialbench import examples
from dialbench.errors import DialbenchError
from dialbench.io.importer import ImportOptions, Loaded, check_file, import_file
from dialbench.pipeline.stage import PlanContext, Stage, StageEstimate, StageResult, relative_to
from dialbench.schema import Dialogue
from dialbench.store import OnConflict, RunStore


class ImportStage(Stage, ImportOptions):
    stage: Literal["import"]
    file: Path | None = Field(default=None, description="relative to the pipeline file")
    example: str | None = Field(default=None, description="a bundled example (dialbench examples)")
    on_conflict: OnConflict = "error"

    @model_validator(mode="after")
    def _one_source(self) -> ImportStage:
        if (self.file is None) == (self.example is None):
            raise ValueError("give either file: or example:")
        return self

    @property
    def path(self) -> Path:
        if self.file is not None:
            return self.file
        bundled = examples.bundled()
        if self.example not in bundled:
            raise DialbenchError(
                f"no bundled example {self.example!r} (have: {', '.join(bundled)})"
            )
        return bundled[self.example]

    def reads(self) -> frozenset[str]:
        return frozenset()

    def writes(self) -> frozenset[str]:
        return frozenset({self.records})

    def input_files(self) -> list[Path]:
        return [self.path]

    def resolve_paths(self, folder: Path) -> ImportStage:
        return self.model_copy(update={"file": relative_to(folder, self.file)})

    def execute(self, run_dir: Path) -> StageResult:
        with RunStore.open(run_dir) as store:
            report = import_file(store, self.path, self.config(ImportOptions), self.on_conflict)
        return StageResult(
            f"{self.path.name}: read {report.read} {report.records}, added {report.added}, "
            f"already present {report.unchanged}",
            report,
        )

    def estimate(self, context: PlanContext) -> StageEstimate:
        if self.records != "dialogues":
            return StageEstimate()
        added = Counter[tuple[str, str]]()

        def count(path: Path, batch: Loaded) -> None:
            added.update((r.source, r.language) for _, r in batch if isinstance(r, Dialogue))

        # A batch at a time, as the import reads it: a plan of a large log holds none of it.
        check_file(self.path, self.config(ImportOptions), check=count)
        return StageEstimate(adds_dialogues=dict(added))
