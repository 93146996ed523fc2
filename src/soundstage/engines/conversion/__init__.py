"""Voice conversion engines (speech in, the same words, timing and intonation in another voice
out), with no HTTP of their own: the voice changer's job calls them."""
