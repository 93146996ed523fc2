"""The console's errors: its files, not an account's data."""

from __future__ import annotations

from soundstage.core.errors import NotFound


class ConsoleNotBuilt(NotFound):
    """The console's files were not built on this server (`make install` builds them)."""

    code = "console_not_found"


class ConsoleFileNotFound(NotFound):
    """No file of the console has this name (an asset of another build, say)."""

    code = "console_file_not_found"
