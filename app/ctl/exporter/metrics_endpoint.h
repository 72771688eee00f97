// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/metrics/metrics_scrape.h"

#include <QObject>

#include <chrono>
#include <functional>

namespace sluice::app {

// What the exporter answers each scrape: a fresh scrape of Redis, or within `wait` an exposition that says
// sluice_up 0 and why, so Prometheus always gets an answer inside its own timeout and an unreachable
// Redis shows as an error, never as silence. Scrapes that come while one is under way share its reading
// (MetricsScraper asks Redis once for all of them), so a frozen Redis never piles up scrapes.
class MetricsEndpoint : public QObject {
    Q_OBJECT

public:
    MetricsEndpoint(model::MetricsScraper *scraper, const QString &ns, std::chrono::milliseconds wait,
                    QObject *parent = nullptr);

    // Calls `answer` once: with the scrape, or at the deadline with sluice_up 0, whichever comes first.
    void collect(std::function<void(const QByteArray &exposition)> answer);

private:
    model::MetricsScraper *m_scraper;
    QString m_ns;
    std::chrono::milliseconds m_wait;
    quint64 m_errors = 0; // answers that could not say everything, since the exporter started
};

} // namespace sluice::app
