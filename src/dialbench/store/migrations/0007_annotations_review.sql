-- The judgment an annotation reviews (the web app's review task), as a column: the annotation
-- pages' progress leaves reviews out and the review pages' reads only them, both from the
-- progress index alone, so it gains the column and stays covering.
ALTER TABLE annotations ADD COLUMN review_of TEXT;
UPDATE annotations SET review_of = json_extract(record, '$.review_of');
DROP INDEX annotations_progress;
CREATE INDEX annotations_progress
  ON annotations(annotator_id, turn_index, other_dialogue_id, dialogue_id, complete, review_of);
