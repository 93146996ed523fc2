"""Webhooks (Standard Webhooks 1.0): endpoints, events, signed deliveries, retries."""
