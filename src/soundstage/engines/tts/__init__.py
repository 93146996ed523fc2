"""Text-to-speech engines behind one Protocol, chosen by name through the registry."""
