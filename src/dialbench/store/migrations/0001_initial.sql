-- Every record is kept whole as JSON in `record`; the other columns are copies for filtering
-- and counting, derived from it on write.

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  command TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  record TEXT NOT NULL
);

CREATE TABLE dialogues (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  language TEXT NOT NULL,
  source TEXT NOT NULL,
  user_model TEXT,
  assistant_model TEXT,
  n_turns INTEGER NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX dialogues_language ON dialogues(language);
CREATE INDEX dialogues_source ON dialogues(source);

-- Targets are not foreign keys: judgments and annotations of items that live elsewhere
-- (imported predictions, published annotation sets) are stored too.
CREATE TABLE judgments (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  protocol TEXT NOT NULL,
  judge_model TEXT NOT NULL,
  dialogue_id TEXT NOT NULL,
  turn_index INTEGER,
  other_dialogue_id TEXT,
  parse_status TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX judgments_dialogue ON judgments(dialogue_id);
CREATE INDEX judgments_protocol ON judgments(protocol, judge_model);

CREATE TABLE annotations (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  annotator_id TEXT NOT NULL,
  dialogue_id TEXT NOT NULL,
  turn_index INTEGER,
  other_dialogue_id TEXT,
  record TEXT NOT NULL
);
CREATE INDEX annotations_dialogue ON annotations(dialogue_id);
