"""The job system knows no feature: features reach it the other way, registering their job
kinds and tasks, and the composition root `app_tasks` wires credits, the media store and the
webhooks listener in. That `soundstage.jobs` imports no feature is the layers contract's
(`lint-imports`, pyproject.toml); who registers is not an import, so it is checked here."""

from __future__ import annotations

from pathlib import Path

import soundstage
from soundstage import app_tasks

PACKAGE = Path(soundstage.__file__).parent


def test_every_registration_is_a_features_own() -> None:
    """The one list of the calls that declare job kinds and tasks is the composition root's,
    and each of them is a feature's own `tasks.register`."""
    assert app_tasks.REGISTRATIONS
    for register in app_tasks.REGISTRATIONS:
        name = register.__module__
        assert not name.startswith("soundstage.jobs"), name
        assert name.endswith(".tasks"), name
        assert register.__name__ == "register", name
        assert (PACKAGE.parent / Path(*name.split("."))).with_suffix(".py").is_file(), name
