"""Soundstage: a self-hostable voice, audio, studio and talent API (v1)."""

__version__ = "0.1.0"
