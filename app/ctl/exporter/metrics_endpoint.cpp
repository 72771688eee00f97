// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/exporter/metrics_endpoint.h"

#include "model/metrics/metrics_exposition.h"

#include <QPointer>
#include <QTimer>

#include <algorithm>
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
    const quint64 id = ++m_nextId;
    m_waiting.push_back({id, std::move(answer)});
    QTimer::singleShot(m_wait, this, [this, id] { answerLate(id); });
    if (m_scraping)
        return;
    m_scraping = true;
    QPointer<MetricsEndpoint> alive(this);
    m_scraper->scrape([alive](const model::MetricsSnapshot &snapshot) {
        if (alive)
            alive->answerAll(snapshot);
    });
}

void MetricsEndpoint::answerLate(quint64 id)
{
    const auto late = std::find_if(m_waiting.begin(), m_waiting.end(), [id](const Waiting &w) { return w.id == id; });
    if (late == m_waiting.end())
        return;
    const auto answer = std::move(late->answer);
    m_waiting.erase(late);
    model::MetricsSnapshot nothing;
    nothing.ns = m_ns;
    nothing.problems.append(QStringLiteral("the scrape took longer than %1 ms").arg(m_wait.count()));
    answer(QByteArray::fromStdString(model::exposition(model::metricFamilies(nothing, ++m_errors))));
}

void MetricsEndpoint::answerAll(const model::MetricsSnapshot &snapshot)
{
    m_scraping = false;
    if (!snapshot.problems.isEmpty())
        ++m_errors;
    const QByteArray exposition
        = QByteArray::fromStdString(model::exposition(model::metricFamilies(snapshot, m_errors)));
    for (const Waiting &waiting : std::exchange(m_waiting, {}))
        waiting.answer(exposition);
}

} // namespace sluice::app
