"""What adding a record does when its id is stored with other content: a name a command line's
option is typed by, so it is importable without the records or SQLite."""

from typing import Literal

OnConflict = Literal["error", "keep", "replace"]
