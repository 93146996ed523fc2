"""The web console at /console: static files (built from `console/` at install time) that use
only the public API, with the signed-in key as a Bearer token."""
