-- The web app reads one annotator's labels on every write: by index, not by a scan of all.
CREATE INDEX annotations_annotator ON annotations(annotator_id);
