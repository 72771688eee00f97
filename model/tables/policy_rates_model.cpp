// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/policy_rates_model.h"

#include "model/format/units.h"
#include "model/policy/policy_summary.h"

#include <algorithm>
#include <cmath>

namespace sluice::model {

namespace {

double share(const RatePoint &point)
{
    const double decided = double(point.allowed) + point.rejected;
    return decided > 0 ? point.rejected / decided : 0;
}

} // namespace

PolicyRatesModel::PolicyRatesModel(PolicyRateSampler *sampler, QObject *parent)
    : QAbstractTableModel(parent)
    , m_sampler(sampler)
{
    connect(sampler, &PolicyRateSampler::sampled, this, &PolicyRatesModel::takeSample);
}

PolicyRatesModel::Row PolicyRatesModel::rowFor(const PolicyRate &rate, const RateSample &sample) const
{
    Row row{rate, {}, {}};
    if (const RateHistory *history = m_sampler->history(rate.policy)) {
        const qint64 interval = m_sampler->intervalMs();
        const qint64 from = sample.endMs - qint64(kTrendPoints) * interval;
        const RatePoint *previous = nullptr;
        for (const RatePoint &point : history->points(from + 1, sample.endMs)) {
            // One empty slot per sample that did not come, so a pause is a gap in its place in time.
            const qint64 unsampled = unsampledBeforeMs(previous, point, interval);
            const qint64 missed = unsampled > 0 ? std::clamp<qint64>(unsampled / interval, 1, kTrendPoints) : 0;
            for (qint64 slot = 0; slot < missed; ++slot) {
                row.allowedTrend << qQNaN();
                row.rejectedTrend << qQNaN();
            }
            row.allowedTrend << point.allowedPerSecond();
            row.rejectedTrend << point.rejectedPerSecond();
            previous = &point;
        }
        while (row.allowedTrend.size() > kTrendPoints) {
            row.allowedTrend.removeFirst();
            row.rejectedTrend.removeFirst();
        }
    }
    return row;
}

void PolicyRatesModel::setStale(const QString &text)
{
    if (text == m_staleText)
        return;
    m_staleText = text;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void PolicyRatesModel::takeSample(const RateSample &sample)
{
    const QString missing = sample.missingNodes.join(QStringLiteral(", "));
    // Primaries that answered with something other than counts (no library, an unknown reply).
    const QString uncounted = sample.problems.join(QStringLiteral("; "));
    if (sample.spanMs == 0) {
        // Nothing counted (no primary answered with counts): the last rates stay, marked as from before.
        if (m_lastSampleEndMs > 0 && m_staleText.isEmpty()) {
            const QString since = formatClock(m_lastSampleEndMs);
            if (!missing.isEmpty())
                setStale(tr("no answer from %1 since %2").arg(missing, since));
            else if (!uncounted.isEmpty())
                setStale(tr("nothing counted since %1: %2").arg(since, uncounted));
        }
        return;
    }
    m_lastSampleEndMs = sample.endMs;
    QStringList partial;
    if (!missing.isEmpty())
        partial << tr("%1 did not answer; its decisions are counted when it does").arg(missing);
    if (!uncounted.isEmpty())
        partial << tr("not counted: %1").arg(uncounted);
    setStale(partial.isEmpty() ? QString() : tr("partial: %1").arg(partial.join(QStringLiteral("; "))));
    // Both lists are in name order: merge them. The rows kept are updated in place and said changed once, at the
    // end: a signal per row would have a sorting view re-sort once per row (a 79 ms stall at 1,000 policies).
    int row = 0;
    qsizetype next = 0;
    bool updated = false;
    const QVector<PolicyRate> &incoming = sample.policies;
    while (row < m_rows.size() || next < incoming.size()) {
        const bool rowsLeft = row < m_rows.size();
        const bool incomingLeft = next < incoming.size();
        if (!incomingLeft || (rowsLeft && m_rows.at(row).rate.policy < incoming.at(next).policy)) {
            beginRemoveRows({}, row, row);
            m_rows.remove(row);
            endRemoveRows();
            continue;
        }
        if (!rowsLeft || incoming.at(next).policy < m_rows.at(row).rate.policy) {
            beginInsertRows({}, row, row);
            m_rows.insert(row, rowFor(incoming.at(next), sample));
            endInsertRows();
        } else {
            m_rows[row] = rowFor(incoming.at(next), sample);
            updated = true;
        }
        ++row;
        ++next;
    }
    if (updated)
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

int PolicyRatesModel::rowOf(const QString &policy) const
{
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows.at(row).rate.policy == policy)
            return row;
    return -1;
}

void PolicyRatesModel::setPublished(const QVector<Policy> &policies)
{
    QHash<QString, QString> limits;
    for (const Policy &policy : policies)
        limits.insert(policy.name, limitInWords(policy));
    QHash<QString, double> predicted;
    for (const Policy &policy : policies)
        if (policy.predictedRejectedShare >= 0)
            predicted.insert(policy.name, policy.predictedRejectedShare);
    const QSet<QString> shadow = shadowPolicyNames(policies);
    if (shadow == m_shadow && limits == m_limits && predicted == m_predicted)
        return;
    m_shadow = shadow;
    m_limits = limits;
    m_predicted = predicted;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void PolicyRatesModel::setTopSubjects(const TopSubjects *top)
{
    m_top = top;
    connect(top, &TopSubjects::updated, this, [this] {
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, TopSubject), index(int(m_rows.size()) - 1, TopSubject));
    });
}

void PolicyRatesModel::setRuleCounts(const RuleCounts *rules)
{
    m_rules = rules;
    connect(rules, &RuleCounts::updated, this, [this] {
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, Blocked), index(int(m_rows.size()) - 1, Blocked));
    });
}

int PolicyRatesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PolicyRatesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PolicyRatesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const RatePoint &point = row.rate.point;
    const bool shadow = m_shadow.contains(row.rate.policy);
    const bool wouldReject = shadow && (index.column() == RejectedPerSecond || index.column() == RejectedShare);
    if (role == NameRole)
        return row.rate.policy;
    if (role == AllowedTrendRole && index.column() == Trend)
        return QVariant::fromValue(row.allowedTrend);
    if (role == RejectedTrendRole && index.column() == Trend)
        return QVariant::fromValue(shadow ? QList<qreal>{} : row.rejectedTrend);
    if (role == WouldRejectTrendRole && index.column() == Trend)
        return QVariant::fromValue(shadow ? row.rejectedTrend : QList<qreal>{});
    if (role == StaleRole)
        return !m_staleText.isEmpty();
    const TopSubjects::Entry *top = m_top ? m_top->of(row.rate.policy) : nullptr;
    if (role == SubjectRole)
        return top ? top->subject.subject : QByteArray();
    const RuleCounts::Entry *rules = m_rules ? m_rules->of(row.rate.policy) : nullptr;
    if (role == SortRole) {
        switch (index.column()) {
        case Name: return row.rate.policy;
        case Limit: return m_limits.value(row.rate.policy);
        case TopSubject: return top ? double(top->subject.rejections) : 0.0;
        case Blocked: return rules ? double(rules->sum.blockedNow) : -1.0;
        case AllowedPerSecond: return point.allowedPerSecond();
        case RejectedPerSecond:
        case Trend: return shadow ? 0.0 : point.rejectedPerSecond();
        case RejectedShare: return shadow ? 0.0 : share(point);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        QString text;
        switch (index.column()) {
        case Name:
            text = shadow ? withShadowMark(row.rate.policy) : row.rate.policy; // its tooltip says what that means
            return m_staleText.isEmpty() ? text : tr("%1 (stale)").arg(text);
        case Limit: return m_limits.value(row.rate.policy, QStringLiteral("\u2013"));
        case TopSubject:
            if (!top)
                return QStringLiteral("\u2013");
            text = tr("%1 (%2 rejected)")
                       .arg(QString::fromUtf8(top->subject.subject), formatCount(qint64(top->subject.rejections)));
            break;
        case AllowedPerSecond: return formatDecimal(point.allowedPerSecond());
        case Blocked:
            // A sum some primary did not answer for is not the policy's: it says so.
            if (!rules)
                return QStringLiteral("\u2013");
            return rules->complete ? formatCount(qint64(rules->sum.blockedNow))
                                   : tr("%1?").arg(formatCount(qint64(rules->sum.blockedNow)));
        case RejectedPerSecond: text = formatDecimal(point.rejectedPerSecond()); break;
        case RejectedShare:
            if (m_predicted.contains(row.rate.policy)) {
                // A twin: what it measured since the library was loaded beside what its replay predicted.
                const quint64 decided = row.rate.allowedTotal + row.rate.rejectedTotal;
                return tr("(%1) predicted %2")
                    .arg(decided ? formatShare(double(row.rate.rejectedTotal) / double(decided))
                                 : QStringLiteral("\u2013"),
                         formatShare(m_predicted.value(row.rate.policy)));
            }
            if (point.allowed + point.rejected == 0)
                return QStringLiteral("\u2013");
            text = formatShare(share(point));
            break;
        default: return {};
        }
        return wouldReject ? QStringLiteral("(%1)").arg(text) : text; // what it would reject, not rejections
    }
    if (role == Qt::ToolTipRole && index.column() == TopSubject)
        return top ? tr("Most rejected subject: \u201c%1\u201d, %2 rejections in the minute before %4 on %3, as this "
                        "window's readings of the library's counts differ. Watch its bucket with the button above "
                        "or Ctrl+W.")
                         .arg(QString::fromUtf8(top->subject.subject), formatCount(qint64(top->subject.rejections)),
                              top->subject.node, formatClock(top->readAtMs))
                   : tr("No subject rejected while this policy was read.");
    if (role == Qt::ToolTipRole && index.column() == Blocked) {
        if (!rules)
            return tr("This policy has no overrides, lists or penalty, and took no reservations.");
        const PolicyRuleCounts &sum = rules->sum;
        return tr("%1 subjects blocked by the penalty at %2%3. Since the library was loaded: %4 calls admitted by "
                  "allow rules, %5 rejected by deny rules, %6 penalties started; %7 reservations, %8 settled, %9 "
                  "units settled into debt, %10 not charged (past the most debt).")
            .arg(sum.blockedNow)
            .arg(formatClock(rules->readAtMs),
                 rules->complete ? QString() : tr(" (not every primary answered: at least this many)"))
            .arg(sum.allowListed)
            .arg(sum.denied)
            .arg(sum.blocksStarted)
            .arg(sum.reservations)
            .arg(sum.settlements)
            .arg(sum.debtUnits)
            .arg(sum.unchargedUnits);
    }
    if (role == Qt::ToolTipRole && index.column() == Limit)
        return m_limits.contains(row.rate.policy)
            ? tr("The published limit of \u201c%1\u201d: %2").arg(row.rate.policy, m_limits.value(row.rate.policy))
            : tr("Not in the published library.");
    if (role == Qt::ToolTipRole && !m_staleText.isEmpty())
        return tr("Not the present: %1. These are the last figures counted.").arg(m_staleText);
    if (role == Qt::ToolTipRole && index.column() == RejectedShare && m_predicted.contains(row.rate.policy))
        return tr("Shadow twin: of the %1 calls of its live policy it decided since the library was loaded it would "
                  "have rejected %2; the replay it was chosen by predicted %3 of requests rejected.")
            .arg(row.rate.allowedTotal + row.rate.rejectedTotal)
            .arg(row.rate.rejectedTotal)
            .arg(formatShare(m_predicted.value(row.rate.policy)));
    if (role == Qt::ToolTipRole && shadow)
        return tr("Shadow policy: it rejects nothing. In the last %1 ms it let %2 calls through and would have "
                  "rejected %3 of them; since the library was loaded, %4 and %5.")
            .arg(point.spanMs)
            .arg(point.allowed + point.rejected)
            .arg(point.rejected)
            .arg(row.rate.allowedTotal + row.rate.rejectedTotal)
            .arg(row.rate.rejectedTotal);
    if (role == Qt::ToolTipRole && index.column() != Name)
        return tr("%1 allowed and %2 rejected in the last %3 ms; %4 allowed and %5 rejected since the library was "
                  "loaded")
            .arg(point.allowed)
            .arg(point.rejected)
            .arg(point.spanMs)
            .arg(row.rate.allowedTotal)
            .arg(row.rate.rejectedTotal);
    if (role == Qt::ToolTipRole)
        return row.rate.policy; // whole, however the column elides it
    const bool words = index.column() == Name || index.column() == Limit || index.column() == TopSubject;
    if (role == Qt::TextAlignmentRole && !words && index.column() != Trend)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PolicyRatesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Policy");
    case Limit: return tr("Limit");
    case TopSubject: return tr("Most rejected");
    case Blocked: return tr("Blocked");
    case AllowedPerSecond: return tr("Allowed/s");
    case RejectedPerSecond: return tr("Rejected/s");
    case RejectedShare: return tr("% rejected");
    case Trend: return tr("Last %1 samples").arg(kTrendPoints);
    default: return {};
    }
}

} // namespace sluice::model
