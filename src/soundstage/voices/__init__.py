"""The voice catalog: the voices text-to-speech speaks with, their creators, the demo catalog."""
