"""Forced alignment: a known transcript placed on the audio that speaks it."""
