"""Media storage: media objects, the storage backend, signed expiring URLs, uploads."""
