"""Licensed media: granted when a license completes (one asset per demo of the creator), and
listed, each with a signed URL and its license terms, only while the license runs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import License, LicensedMedia, TalentDemo
from soundstage.workforce.errors import LicensedMediaNotFound
from soundstage.workforce.media import repository
from soundstage.workforce.media.schemas import LicensedMediaOut, LicenseTermsOut
from soundstage.workforce.talent import service as talent


def grant(
    session: Session, buyer: Principal, license_id: str, granted: Sequence[TalentDemo]
) -> None:
    now = utcnow()
    repository.add_all(
        session,
        [
            LicensedMedia(
                id=new_id("lmed"),
                account_id=buyer.account_id,
                environment=buyer.environment,
                license_id=license_id,
                demo_id=demo.id,
                # Lists are newest first: demo 0 is stamped newest, so it is listed first.
                created_at=now - timedelta(microseconds=position),
            )
            for position, demo in enumerate(granted)
        ],
    )


def list_held(
    session: Session,
    settings: Settings,
    buyer: Principal,
    page: PageParams,
    *,
    creator_id: str | None,
    license_id: str | None,
) -> tuple[list[LicensedMediaOut], bool]:
    stmt = repository.held_query(buyer, utcnow())
    if creator_id is not None:
        stmt = stmt.where(License.creator_id == creator_id)
    if license_id is not None:
        stmt = stmt.where(License.id == license_id)
    rows, has_more = paginate(session, stmt, LicensedMedia, page, LicensedMediaNotFound)
    licenses = repository.licenses_by_id(session, (r.license_id for r in rows))
    demo_rows = talent.demos_by_id(session, [r.demo_id for r in rows])
    return [
        _out(settings, row, licenses[row.license_id], demo_rows[row.demo_id]) for row in rows
    ], has_more


def _out(
    settings: Settings, row: LicensedMedia, license_: License, demo: TalentDemo
) -> LicensedMediaOut:
    """A licensed demo with a URL signed now and its license's terms."""
    url, expires_at = talent.signed_demo_url(settings, demo)
    # Only completed licenses are listed, and completion sets the term.
    assert license_.starts_at is not None
    assert license_.ends_at is not None
    return LicensedMediaOut(
        id=row.id,
        creator_id=license_.creator_id,
        demo_id=demo.id,
        title=demo.title,
        genre=demo.genre,
        language=demo.language,
        url=url,
        url_expires_at=expires_at,
        license=LicenseTermsOut(
            license_id=license_.id,
            usage_type=license_.usage_type,
            territory=license_.territory,
            duration_months=license_.duration_months,
            starts_at=license_.starts_at,
            ends_at=license_.ends_at,
        ),
        created_at=row.created_at,
    )
