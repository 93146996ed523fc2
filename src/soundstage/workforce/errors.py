"""Errors of the workforce marketplace."""

from soundstage.core.errors import Conflict, InvalidField, NotFound


class CreatorNotFound(NotFound):
    code = "creator_not_found"


class DemoNotFound(NotFound):
    code = "demo_not_found"


class CampaignNotFound(NotFound):
    code = "campaign_not_found"


class LicenseNotFound(NotFound):
    code = "license_not_found"


class CampaignStateConflict(Conflict):
    code = "campaign_state_conflict"


class LicenseStateConflict(Conflict):
    code = "license_state_conflict"


class UsageNotOffered(InvalidField):
    code = "usage_not_offered"


class InvalidTalentImport(InvalidField):
    code = "invalid_talent_import"
