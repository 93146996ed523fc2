"""Errors of the workforce marketplace."""

from soundstage.core.errors import Conflict, InvalidField, NotFound


class CreatorNotFound(NotFound):
    """No such creator (talent)."""

    code = "creator_not_found"


class DemoNotFound(NotFound):
    """No such demo, or it is no longer available."""

    code = "demo_not_found"


class CampaignNotFound(NotFound):
    """No such campaign brief."""

    code = "campaign_not_found"


class LicenseNotFound(NotFound):
    """No such license."""

    code = "license_not_found"


class LicensedMediaNotFound(NotFound):
    """No such licensed media asset among the caller's."""

    code = "licensed_media_not_found"


class CampaignStateConflict(Conflict):
    """The campaign's status does not allow this move."""

    code = "campaign_state_conflict"


class LicenseStateConflict(Conflict):
    """The license's status does not allow this move."""

    code = "license_state_conflict"


class UsageNotOffered(InvalidField):
    """The creator does not offer this `usage_type`."""

    code = "usage_not_offered"


class InvalidTalentImport(InvalidField):
    """A talent catalog file with an invalid profile (operator import)."""

    code = "invalid_talent_import"
