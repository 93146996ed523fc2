"""Voice agents: named personas of a caller that speak with a catalog voice."""
