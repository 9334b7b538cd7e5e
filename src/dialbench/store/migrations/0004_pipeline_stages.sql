-- Pipeline stages that finished, keyed by their identity: an unchanged stage is skipped.
CREATE TABLE pipeline_stages (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  record TEXT NOT NULL
);
