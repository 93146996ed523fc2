"""Stored closed sets (statuses, media purposes) are StrEnums beside their tables
(models/*.py): code compares and writes the enum's members, never bare string literals, so a
misspelt state is an AttributeError (and a mypy error), not a condition that is silently
never true. Stored values are unchanged: a StrEnum member equals the text in the column."""

from __future__ import annotations

import ast
import textwrap
from itertools import pairwise
from pathlib import Path

from soundstage.models.accounts import BuyerVerificationStatus
from soundstage.models.jobs import JobStatus
from soundstage.models.webhooks import WebhookDeliveryStatus
from tests.support.processes import REPO_ROOT

SRC = REPO_ROOT / "src" / "soundstage"

# Attributes holding a stored closed set (the columns typed by a StrEnum in models/).
CLOSED_SET_ATTRIBUTES = frozenset({"status", "purpose"})


def _is_closed_set_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in CLOSED_SET_ATTRIBUTES


def _has_bare_string(node: ast.expr) -> bool:
    """A str constant, or a tuple, list or set holding one (the right side of an `in`)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_has_bare_string(item) for item in node.elts)
    return False


def bare_status_comparisons(source: str) -> list[int]:
    """Lines comparing a `.status` (or `.purpose`) attribute with a bare string literal:
    `x.status == "done"`, `"done" != x.status`, `x.status in ("a", "b")`,
    `Model.status.in_(["a"])`."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for left, right in pairwise(operands):
                if (_is_closed_set_attribute(left) and _has_bare_string(right)) or (
                    _is_closed_set_attribute(right) and _has_bare_string(left)
                ):
                    lines.append(node.lineno)
                    break
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "in_"
            and _is_closed_set_attribute(node.func.value)
            and any(_has_bare_string(arg) for arg in node.args)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def offenders(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root.parent)}:{line}"
        for path in sorted(root.rglob("*.py"))
        for line in bare_status_comparisons(path.read_text())
    ]


def test_no_status_is_compared_with_a_bare_string() -> None:
    found = offenders(SRC)
    assert not found, (
        "compare with the StrEnum member of the column's set (models/<table group>.py):\n"
        + "\n".join(found)
    )


def test_the_check_sees_each_form_of_comparison() -> None:
    sample = textwrap.dedent(
        """
        if job.status == "completed":
            pass
        ok = "failed" != delivery.status
        waiting = record.status in ("pending", "held")
        live = media.purpose == "output"
        query = select(Job).where(Job.status.in_(["queued"]))
        fine = job.status == JobStatus.COMPLETED
        also_fine = job.state == "completed"
        filter_value = status == "completed"
        """
    )
    assert bare_status_comparisons(sample) == [2, 4, 5, 6, 7]


def test_members_equal_the_stored_strings() -> None:
    """What makes the change invisible to the database and the API: members are str."""
    stored: str = "completed"  # as a column reads back
    assert stored == JobStatus.COMPLETED
    assert f"{BuyerVerificationStatus.VERIFIED}" == "verified"
    assert WebhookDeliveryStatus("pending") is WebhookDeliveryStatus.PENDING
