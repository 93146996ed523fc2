"""Shared core: database, errors, ids, pagination, rate limits, idempotency, middleware."""
