"""Jobs: records, the Huey queue, workers with leases, the sweeper, the polling endpoints."""
