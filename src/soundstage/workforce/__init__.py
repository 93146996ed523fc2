"""The voice-talent marketplace: talent discovery and search, campaign briefs, licensing with
its success fee, and the media that licenses grant."""
