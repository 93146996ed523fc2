"""Errors of the accounts feature."""

from soundstage.core.errors import Conflict, NotFound, PermissionDenied


class AccountNotFound(NotFound):
    code = "account_not_found"


class ApiKeyNotFound(NotFound):
    code = "api_key_not_found"


class BuyerNotVerified(PermissionDenied):
    code = "buyer_not_verified"


class SandboxOnly(PermissionDenied):
    code = "sandbox_only"


class VerificationStateConflict(Conflict):
    code = "verification_state_conflict"
