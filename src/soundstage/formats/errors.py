"""Errors of the file formats: what a format cannot hold."""

from __future__ import annotations

from soundstage.core.errors import InvalidField


class OmfTooLarge(InvalidField):
    """An OMF with this much embedded audio would pass 2 GiB; use AAF or linked media."""

    code = "omf_too_large"
