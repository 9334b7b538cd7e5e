-- Every successful model call, keyed by the content hash of (model spec, request). A re-run
-- finds its calls here and makes none; a run killed halfway keeps every call written so far.
CREATE TABLE llm_cache (
  key TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at TEXT NOT NULL,
  request TEXT NOT NULL,
  completion TEXT NOT NULL
);

-- Tokens and spend per run, role and model, as the runner counted them (cached calls cost 0).
CREATE TABLE llm_usage (
  run_id TEXT NOT NULL,
  role TEXT NOT NULL,
  model TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, role, model)
);
