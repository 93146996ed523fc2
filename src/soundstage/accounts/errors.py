"""Errors of the accounts feature."""

from soundstage.core.errors import Conflict, NotFound, PermissionDenied


class AccountNotFound(NotFound):
    """No such account (operator commands)."""

    code = "account_not_found"


class ApiKeyNotFound(NotFound):
    """No such API key (or not one of the caller's, in its environment)."""

    code = "api_key_not_found"


class BuyerNotVerified(PermissionDenied):
    """Workforce discovery and licensing need a verified buyer account."""

    code = "buyer_not_verified"


class VerificationStateConflict(Conflict):
    """The buyer verification is not in a state that allows this (already verified, or
    nothing pending to decide)."""

    code = "verification_state_conflict"


class TooManyApiKeys(Conflict):
    """The account has `accounts.max_active_keys` active API keys in this environment
    already: revoke one first."""

    code = "too_many_api_keys"


class LastApiKey(Conflict):
    """This is the account's last active API key in its environment: create another before
    revoking it, so that the account keeps a way in."""

    code = "last_api_key"
