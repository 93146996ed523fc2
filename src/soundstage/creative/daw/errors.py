"""Errors of the DAW export."""

from __future__ import annotations

from soundstage.core.errors import InvalidField


class SessionTooLong(InvalidField):
    """The session (until the end of its last clip) would pass `daw.max_session_ms`."""

    code = "session_too_long"


class ExportTooLarge(InvalidField):
    """The export's stems together would pass the output size cap."""

    code = "export_too_large"


class StemTooLarge(InvalidField):
    """One stem would pass what a WAVE file holds (4 GiB)."""

    code = "stem_too_large"
