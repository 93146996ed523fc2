"""Operations: liveness (/healthz), readiness (/readyz) and Prometheus metrics (/metrics)."""
