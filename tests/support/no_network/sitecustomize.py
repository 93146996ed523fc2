"""Run by every Python the tests start with this directory on PYTHONPATH (their servers and
workers): no connection to another machine (tests/support/offline.py)."""

from tests.support.offline import forbid_network

forbid_network()
