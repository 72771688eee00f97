// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/exporter/metrics_endpoint.h"

#include "model/metrics/metrics_exposition.h"

#include <QPointer>
#include <QTimer>

#include <memory>
#include <utility>

namespace sluice::app {

MetricsEndpoint::MetricsEndpoint(model::MetricsScraper *scraper, const QString &ns, std::chrono::milliseconds wait,
                                 QObject *parent)
    : QObject(parent)
    , m_scraper(scraper)
    , m_ns(ns)
    , m_wait(wait)
{
}

void MetricsEndpoint::collect(std::function<void(const QByteArray &exposition)> answer)
{
    // Whichever of the scrape and the deadline comes first takes the answer; the other finds it gone.
    auto pending = std::make_shared<std::function<void(const QByteArray &)>>(std::move(answer));
    QPointer<MetricsEndpoint> alive(this);
    const auto answerWith = [alive, pending](const model::MetricsSnapshot &snapshot) {
        if (!alive || !*pending)
            return;
        const quint64 errors = snapshot.problems.isEmpty() ? alive->m_errors : ++alive->m_errors;
        std::exchange(*pending,
                      nullptr)(QByteArray::fromStdString(model::exposition(model::metricFamilies(snapshot, errors))));
    };
    QTimer::singleShot(m_wait, this, [this, answerWith] {
        model::MetricsSnapshot late;
        late.ns = m_ns;
        late.problems.append(QStringLiteral("the scrape took longer than %1 ms").arg(m_wait.count()));
        answerWith(late);
    });
    m_scraper->scrape(answerWith);
}

} // namespace sluice::app
