"""The documentation site's errors: its files, not an account's data."""

from __future__ import annotations

from soundstage.core.errors import NotFound


class GuideNotBuilt(NotFound):
    """The documentation site was not built on this server (`make docs` builds it)."""

    code = "guide_not_found"


class GuidePageNotFound(NotFound):
    """No page or file of the documentation site has this path."""

    code = "guide_page_not_found"
