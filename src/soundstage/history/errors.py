"""Errors of the history."""

from soundstage.core.errors import NotFound


class HistoryItemNotFound(NotFound):
    """No such history item: no finished generation of the caller's by that id (or it was
    deleted)."""

    code = "history_item_not_found"
