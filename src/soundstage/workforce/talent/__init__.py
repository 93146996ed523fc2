"""Talent: creator profiles, their rate cards and demos, discovery and full-text search.

Importing the package registers the listener that keeps the search index in step with the
creators written through the ORM (`indexing`)."""

from soundstage.workforce.talent import indexing as indexing
