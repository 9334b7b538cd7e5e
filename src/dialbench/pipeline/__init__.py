"""`dialbench run PIPELINE.yaml`: the stages of a study, in one file, run as a graph.

A stage is one entry of the config (`stage: judge`, ...), a typed record whose kind is one file
under `stages/` and one line in `registry.py`. A stage that finished with the same identity (its
settings, its input files and the identities of the stages it reads from) is not run again.
"""
