// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/metrics/metrics_scrape.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <prometheus/collectable.h>

namespace sluice::app {

// What prometheus-cpp's HTTP exposer asks on each scrape, from one of its own threads: a fresh
// scrape of Redis, run on the scraper's (Qt) thread, waited for at most `wait`. A scrape that takes
// longer answers sluice_up 0 and counts as an error, so Prometheus still gets an answer within its
// own timeout and an unreachable Redis shows as an error, never as silence. prometheus-cpp collects one
// scrape at a time, so while a scrape that timed out still waits for Redis, the scrapes queued behind it
// answer sluice_up 0 at once rather than each waiting out `wait` in turn.
class MetricsEndpoint : public prometheus::Collectable {
public:
    MetricsEndpoint(model::MetricsScraper *scraper, const QString &ns, std::chrono::milliseconds wait);

    std::vector<prometheus::MetricFamily> Collect() const override;

private:
    model::MetricsScraper *m_scraper;
    QString m_ns;
    std::chrono::milliseconds m_wait;
    // Shared with scrapes in progress, which may end after this endpoint.
    std::shared_ptr<std::atomic<quint64>> m_errors = std::make_shared<std::atomic<quint64>>(0);
    std::shared_ptr<std::atomic<bool>> m_waitingForRedis = std::make_shared<std::atomic<bool>>(false);
};

} // namespace sluice::app
