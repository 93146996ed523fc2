"""Pronunciation dictionaries: alias or IPA phoneme rules in immutable versions, from JSON
or W3C PLS files."""
