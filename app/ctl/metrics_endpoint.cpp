// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/metrics_endpoint.h"

#include "model/metrics/metrics_exposition.h"

#include <future>

namespace sluice::app {

MetricsEndpoint::MetricsEndpoint(model::MetricsScraper *scraper, const QString &ns, std::chrono::milliseconds wait)
    : m_scraper(scraper)
    , m_ns(ns)
    , m_wait(wait)
{
}

std::vector<prometheus::MetricFamily> MetricsEndpoint::Collect() const
{
    model::MetricsSnapshot late;
    late.ns = m_ns;
    if (m_waitingForRedis->load()) {
        late.problems.append(QStringLiteral("an earlier scrape still waits for Redis"));
        return model::metricFamilies(late, ++*m_errors);
    }
    // Shared with the scrape, which may finish after this thread stopped waiting for it.
    auto result = std::make_shared<std::promise<std::vector<prometheus::MetricFamily>>>();
    std::future<std::vector<prometheus::MetricFamily>> families = result->get_future();
    model::MetricsScraper *scraper = m_scraper;
    std::shared_ptr<std::atomic<quint64>> errors = m_errors;
    std::shared_ptr<std::atomic<bool>> waiting = m_waitingForRedis;
    waiting->store(true);
    QMetaObject::invokeMethod(
        scraper,
        [scraper, result, errors, waiting] {
        scraper->scrape([result, errors, waiting](const model::MetricsSnapshot &snapshot) {
            const quint64 errorCount = snapshot.problems.isEmpty() ? errors->load() : ++*errors;
            result->set_value(model::metricFamilies(snapshot, errorCount));
            waiting->store(false);
        });
        },
        Qt::QueuedConnection);
    if (families.wait_for(m_wait) == std::future_status::ready)
        return families.get();
    late.problems.append(QStringLiteral("the scrape took longer than %1 ms").arg(m_wait.count()));
    return model::metricFamilies(late, ++*m_errors);
}

} // namespace sluice::app
