"""Licensing: quotes from rate cards, the license lifecycle and its 1% success fee."""
