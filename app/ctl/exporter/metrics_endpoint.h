// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/metrics/metrics_scrape.h"

#include <QObject>

#include <chrono>
#include <functional>
#include <vector>

namespace sluice::app {

// What the exporter answers each scrape: a fresh scrape of Redis, or within `wait` an exposition that says
// sluice_up 0 and why, so Prometheus always gets an answer inside its own timeout and an unreachable
// Redis shows as an error, never as silence. Scrapes that come while one is under way share its answer
// instead of each asking Redis again (a frozen Redis never piles up scrapes).
class MetricsEndpoint : public QObject {
    Q_OBJECT

public:
    MetricsEndpoint(model::MetricsScraper *scraper, const QString &ns, std::chrono::milliseconds wait,
                    QObject *parent = nullptr);

    void collect(std::function<void(const QByteArray &exposition)> answer);

private:
    struct Waiting {
        quint64 id;
        std::function<void(const QByteArray &)> answer;
    };
    void answerLate(quint64 id);
    void answerAll(const model::MetricsSnapshot &snapshot);

    model::MetricsScraper *m_scraper;
    QString m_ns;
    std::chrono::milliseconds m_wait;
    quint64 m_errors = 0;
    quint64 m_nextId = 0;
    bool m_scraping = false;
    std::vector<Waiting> m_waiting;
};

} // namespace sluice::app
