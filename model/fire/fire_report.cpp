// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/fire/fire_report.h"

#include <QJsonArray>

namespace sluice::model {

namespace {

double milliseconds(qint64 microseconds)
{
    return microseconds / 1000.0;
}

QByteArray csvField(const QString &text)
{
    QByteArray field = text.toUtf8();
    if (field.contains(',') || field.contains('"') || field.contains('\n'))
        field = '"' + field.replace("\"", "\"\"") + '"';
    return field;
}

QJsonObject summaryJson(const FireSummary &summary, bool reserving)
{
    QJsonObject object{
        {QStringLiteral("target"), summary.target},
        {QStringLiteral("sent"), summary.sent},
        {QStringLiteral("answered"), summary.answered},
        {QStringLiteral("allowed"), summary.allowed},
        {QStringLiteral("rejected"), summary.rejected},
        {QStringLiteral("errors"), summary.errors},
        {QStringLiteral("achieved_rate"), summary.achievedRate},
        {QStringLiteral("expected_allowed"), summary.expectedAllowed},
        {QStringLiteral("expected_rejected"), summary.expectedRejected},
        {QStringLiteral("deviation_percent"), summary.deviationPercent},
        {QStringLiteral("p50_ms"), milliseconds(summary.p50Us)},
        {QStringLiteral("p95_ms"), milliseconds(summary.p95Us)},
        {QStringLiteral("p99_ms"), milliseconds(summary.p99Us)},
        {QStringLiteral("max_ms"), milliseconds(summary.maxUs)},
        {QStringLiteral("mean_ms"), summary.meanUs / 1000.0},
    };
    if (reserving)
        object.insert(QStringLiteral("settlements"),
                      QJsonObject{{QStringLiteral("settled"), summary.settled},
                                  {QStringLiteral("refused"), summary.settleRefused},
                                  {QStringLiteral("charged"), summary.charged},
                                  {QStringLiteral("uncharged"), summary.uncharged},
                                  {QStringLiteral("expected_charged"), summary.expectedCharged},
                                  {QStringLiteral("expected_uncharged"), summary.expectedUncharged}});
    if (!summary.firstError.isEmpty())
        object.insert(QStringLiteral("first_error"), summary.firstError);
    return object;
}

} // namespace

FireBin &FireBin::operator+=(const FireBin &other)
{
    sent += other.sent;
    allowed += other.allowed;
    rejected += other.rejected;
    errors += other.errors;
    expectedAllowed += other.expectedAllowed;
    expectedRejected += other.expectedRejected;
    settled += other.settled;
    settleRefused += other.settleRefused;
    charged += other.charged;
    uncharged += other.uncharged;
    expectedCharged += other.expectedCharged;
    expectedUncharged += other.expectedUncharged;
    return *this;
}

QString FireSummary::settlementText() const
{
    return QStringLiteral("settled %1 (%2 refused), charged %3 units (model %4), not charged %5 (model %6)")
        .arg(settled)
        .arg(settleRefused)
        .arg(charged)
        .arg(expectedCharged)
        .arg(uncharged)
        .arg(expectedUncharged);
}

FireReport::FireReport(const FirePlan &plan)
    : m_plan(plan)
    , m_bins(plan.targets.size())
    , m_latency(plan.targets.size())
    , m_firstErrors(plan.targets.size(), QString())
{
}

void FireReport::apply(const FireUpdate &update)
{
    for (int target = 0; target < update.bins.size() && target < m_bins.size(); ++target) {
        QVector<FireBin> &bins = m_bins[target];
        const QVector<FireBin> &fresh = update.bins.at(target);
        bins.resize(std::max<qsizetype>(bins.size(), update.firstBin + fresh.size()));
        std::copy(fresh.begin(), fresh.end(), bins.begin() + update.firstBin);
        m_latency[target] = update.latency.value(target);
        m_firstErrors[target] = update.firstErrors.value(target);
    }
    m_last = update;
    m_last.bins.clear();
    m_last.latency.clear();
}

LatencyHistogram FireReport::allLatency() const
{
    LatencyHistogram all;
    for (const LatencyHistogram &latency : m_latency)
        all.merge(latency);
    return all;
}

FireSummary FireReport::summary(int target) const
{
    FireSummary summary;
    summary.target = m_plan.targets.at(target).label();
    FireBin total;
    for (const FireBin &bin : m_bins.at(target))
        total += bin;
    summary.sent = total.sent;
    summary.allowed = total.allowed;
    summary.rejected = total.rejected;
    summary.errors = total.errors;
    summary.answered = total.allowed + total.rejected;
    summary.expectedAllowed = total.expectedAllowed;
    summary.expectedRejected = total.expectedRejected;
    summary.settled = total.settled;
    summary.settleRefused = total.settleRefused;
    summary.charged = total.charged;
    summary.uncharged = total.uncharged;
    summary.expectedCharged = total.expectedCharged;
    summary.expectedUncharged = total.expectedUncharged;
    summary.achievedRate = m_last.sendingMs > 0 ? total.sent * 1000.0 / m_last.sendingMs : 0;
    summary.deviationPercent = total.expectedAllowed > 0
        ? (total.allowed - total.expectedAllowed) * 100.0 / total.expectedAllowed
        : (total.allowed > 0 ? 100.0 : 0.0);
    const LatencyHistogram &latency = m_latency.at(target);
    summary.p50Us = latency.percentile(0.50);
    summary.p95Us = latency.percentile(0.95);
    summary.p99Us = latency.percentile(0.99);
    summary.maxUs = latency.max();
    summary.meanUs = latency.mean();
    summary.firstError = m_firstErrors.value(target);
    return summary;
}

QByteArray FireReport::toCsv() const
{
    QByteArray csv = "# " + m_plan.describe().toUtf8() + '\n';
    for (int target = 0; target < targetCount(); ++target) {
        const FireSummary s = summary(target);
        csv += "# " + s.target.toUtf8()
            + QStringLiteral(": sent %1, allowed %2 (model %3, %4%), rejected %5, errors %6, %7/s; "
                             "latency p50 %8 ms, p95 %9 ms, p99 %10 ms, max %11 ms\n")
                  .arg(s.sent)
                  .arg(s.allowed)
                  .arg(s.expectedAllowed)
                  .arg(s.deviationPercent, 0, 'f', 2)
                  .arg(s.rejected)
                  .arg(s.errors)
                  .arg(s.achievedRate, 0, 'f', 1)
                  .arg(milliseconds(s.p50Us))
                  .arg(milliseconds(s.p95Us))
                  .arg(milliseconds(s.p99Us))
                  .arg(milliseconds(s.maxUs))
                  .toUtf8();
        if (m_plan.reserve)
            csv += "# " + s.target.toUtf8() + ": " + s.settlementText().toUtf8() + '\n';
    }
    csv += "time_ms,target,sent,allowed,rejected,errors,expected_allowed,expected_rejected";
    csv += m_plan.reserve ? ",settled,settle_refused,charged,uncharged,expected_charged,expected_uncharged\n" : "\n";
    for (int target = 0; target < targetCount(); ++target) {
        const QByteArray name = csvField(m_plan.targets.at(target).policy.name);
        const QVector<FireBin> &bins = m_bins.at(target);
        for (int i = 0; i < bins.size(); ++i) {
            const FireBin &b = bins.at(i);
            csv += QByteArray::number(i * fireBinMs) + ',' + name + ',' + QByteArray::number(b.sent) + ','
                + QByteArray::number(b.allowed) + ',' + QByteArray::number(b.rejected) + ','
                + QByteArray::number(b.errors) + ',' + QByteArray::number(b.expectedAllowed) + ','
                + QByteArray::number(b.expectedRejected);
            if (m_plan.reserve)
                for (const qint64 value :
                     {b.settled, b.settleRefused, b.charged, b.uncharged, b.expectedCharged, b.expectedUncharged})
                    csv += ',' + QByteArray::number(value);
            csv += '\n';
        }
    }
    return csv;
}

QJsonObject FireReport::toJson() const
{
    QJsonObject json = targetCount() ? summaryJson(summary(0), m_plan.reserve) : QJsonObject();
    QJsonArray targets;
    for (int target = 0; target < targetCount(); ++target)
        targets.append(summaryJson(summary(target), m_plan.reserve));
    json.insert(QStringLiteral("targets"), targets);
    json.insert(QStringLiteral("plan"), m_plan.describe());
    json.insert(QStringLiteral("shape"), fireShapeName(m_plan.shape));
    json.insert(QStringLiteral("duration_ms"), m_last.sendingMs);
    json.insert(QStringLiteral("connections"), m_plan.connections);
    json.insert(QStringLiteral("max_lag_ms"), m_last.maxLagMs);
    json.insert(QStringLiteral("seed"), QString::number(m_plan.seed));
    const LatencyHistogram all = allLatency();
    json.insert(QStringLiteral("latency_ms"),
                QJsonObject{{QStringLiteral("p50"), milliseconds(all.percentile(0.5))},
                            {QStringLiteral("p95"), milliseconds(all.percentile(0.95))},
                            {QStringLiteral("p99"), milliseconds(all.percentile(0.99))},
                            {QStringLiteral("max"), milliseconds(all.max())}});
    if (m_last.failure)
        json.insert(QStringLiteral("failure"), m_last.failure->message);
    return json;
}

} // namespace sluice::model
