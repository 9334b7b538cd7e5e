-- Whether an annotation is finished, as a column: the web app reads which dialogues each
-- annotator started and finished on every write and for the organiser's page, and this index
-- holds all it reads, so that read touches no record (SQLite 3.40 does not read an index on a
-- JSON expression as covering). It starts with the annotator, so 0005's index goes.
ALTER TABLE annotations ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;
UPDATE annotations SET complete = 0 WHERE json_extract(record, '$.complete') = 0;
DROP INDEX annotations_annotator;
CREATE INDEX annotations_progress
  ON annotations(annotator_id, turn_index, other_dialogue_id, dialogue_id, complete);
