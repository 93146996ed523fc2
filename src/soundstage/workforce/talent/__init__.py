"""Talent: creator profiles, their rate cards and demos, discovery and full-text search."""
