"""Exporting the degraded mode's counter from a Python service with prometheus_client (docs/services.md
explains it). Copy it beside local_limits.py; it needs prometheus_client (Debian 12: python3-prometheus-client).

    local = LocalLimits(instances=4)
    export_local_decisions(local)  # then the service's /metrics has sluice_local_decisions_total
"""
from prometheus_client.core import REGISTRY, CounterMetricFamily


class LocalDecisions:
    """sluice_local_decisions_total{policy, outcome}: the calls a LocalLimits decided in this process."""

    def __init__(self, local):
        self.local = local

    def collect(self):
        family = CounterMetricFamily("sluice_local_decisions", "Limiter calls decided in this process while "
                                     "Redis could not answer.", labels=["policy", "outcome"])
        for (policy, outcome), calls in sorted(dict(self.local.decided).items()):
            family.add_metric([policy, outcome], calls)
        yield family


def export_local_decisions(local, registry=REGISTRY):
    registry.register(LocalDecisions(local))
