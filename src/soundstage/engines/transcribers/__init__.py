"""Speech-to-text models behind one Protocol, chosen by name through the registry, and the
alignment of a known text to the audio that speaks it."""
