// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/policy_rates_model.h"

#include <QLocale>

namespace sluice::model {

namespace {

double share(const RatePoint &point)
{
    const double decided = double(point.allowed) + point.rejected;
    return decided > 0 ? point.rejected / decided : 0;
}

QString perSecondText(double value)
{
    return QLocale().toString(value, 'f', value < 10 ? 1 : 0);
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
        const qint64 from = sample.endMs - qint64(kTrendPoints) * m_sampler->intervalMs();
        for (const RatePoint &point : history->points(from + 1, sample.endMs)) {
            row.allowedTrend << point.allowedPerSecond();
            row.rejectedTrend << point.rejectedPerSecond();
        }
    }
    return row;
}

void PolicyRatesModel::takeSample(const RateSample &sample)
{
    if (sample.spanMs == 0)
        return; // nothing counted (every primary failed): keep showing the last rates
    // Both lists are in name order: merge them.
    int row = 0;
    qsizetype next = 0;
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
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
        ++row;
        ++next;
    }
}

int PolicyRatesModel::rowOf(const QString &policy) const
{
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows.at(row).rate.policy == policy)
            return row;
    return -1;
}

void PolicyRatesModel::setShadowPolicies(const QSet<QString> &policies)
{
    if (policies == m_shadow)
        return;
    m_shadow = policies;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
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
        return QVariant::fromValue(row.rejectedTrend);
    if (role == SortRole) {
        switch (index.column()) {
        case Name: return row.rate.policy;
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
        case Name: return shadow ? tr("%1 [shadow \u2013 would reject]").arg(row.rate.policy) : row.rate.policy;
        case AllowedPerSecond: return perSecondText(point.allowedPerSecond());
        case RejectedPerSecond: text = perSecondText(point.rejectedPerSecond()); break;
        case RejectedShare:
            if (point.allowed + point.rejected == 0)
                return QStringLiteral("\u2013");
            text = QLocale().toString(100 * share(point), 'f', 1) + QLatin1Char('%');
            break;
        default: return {};
        }
        return wouldReject ? QStringLiteral("(%1)").arg(text) : text; // what it would reject, not rejections
    }
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
    if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Trend)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PolicyRatesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Policy");
    case AllowedPerSecond: return tr("Allowed/s");
    case RejectedPerSecond: return tr("Rejected/s");
    case RejectedShare: return tr("Share rejected");
    case Trend: return tr("Last %1 samples").arg(kTrendPoints);
    default: return {};
    }
}

} // namespace sluice::model
