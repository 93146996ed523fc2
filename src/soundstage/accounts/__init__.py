"""Accounts, API keys per environment, authentication and buyer verification."""
