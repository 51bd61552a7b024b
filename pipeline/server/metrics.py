"""Prometheus metrics of one server process: requests, latency, answers by status, errors by code."""
from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    """Counters and a latency histogram in a registry of their own (one per app, so tests can build many)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("loopagent_http_requests", "HTTP requests by method, route and status code",
                                ["method", "route", "status"], registry=self.registry)
        self.latency = Histogram("loopagent_http_request_duration_seconds", "Time to answer an HTTP request",
                                 ["route"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.answers = Counter("loopagent_answers", "Answers by status (answered, not_found, ambiguous, navigation)",
                               ["status"], registry=self.registry)
        self.errors = Counter("loopagent_errors", "Coded errors returned to clients, by catalogue code",
                              ["code"], registry=self.registry)

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(route).observe(seconds)

    def answer(self, status: str) -> None:
        self.answers.labels(status).inc()

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
