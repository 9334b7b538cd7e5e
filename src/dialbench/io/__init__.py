"""Reading records from files and writing them out: the interchange formats."""
