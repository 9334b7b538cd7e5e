-- An annotator with no benchmark reviews a judge's verdicts only (`serve --review`): the
-- benchmark column takes NULL. SQLite changes a column's constraint by rebuilding its table.
CREATE TABLE annotators_new (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL UNIQUE,
  benchmark TEXT,
  token_sha256 TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL
);
INSERT INTO annotators_new (id, run_id, name, benchmark, token_sha256, record)
  SELECT id, run_id, name, benchmark, token_sha256, record FROM annotators;
DROP TABLE annotators;
ALTER TABLE annotators_new RENAME TO annotators;
CREATE INDEX annotators_benchmark ON annotators(benchmark);
