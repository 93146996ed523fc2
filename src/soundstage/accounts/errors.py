"""Errors of the accounts feature."""

from soundstage.core.errors import Conflict, NotFound, PermissionDenied


class AccountNotFound(NotFound):
    """No such account (operator commands)."""

    code = "account_not_found"


class ApiKeyNotFound(NotFound):
    """No such API key (operator commands)."""

    code = "api_key_not_found"


class BuyerNotVerified(PermissionDenied):
    """Workforce discovery and licensing need a verified buyer account."""

    code = "buyer_not_verified"


class VerificationStateConflict(Conflict):
    """The buyer verification is not in a state that allows this (already verified, or
    nothing pending to decide)."""

    code = "verification_state_conflict"
