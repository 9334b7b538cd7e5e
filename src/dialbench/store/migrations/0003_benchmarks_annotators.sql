-- Curated benchmarks (which dialogues, in which order, why) and the people who annotate them.
CREATE TABLE benchmarks (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL
);

-- Only a token's SHA-256 is kept: a copied store file grants no access.
CREATE TABLE annotators (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL UNIQUE,
  benchmark TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL
);
CREATE INDEX annotators_benchmark ON annotators(benchmark);
