// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/policy_rate_sampler.h"

#include <QAbstractTableModel>
#include <QSet>

namespace sluice::model {

// Every policy's live rates as a table, one row per policy in name order, updated in place at each
// sample (rows merge by name, so a view's selection and sort stay put).
class PolicyRatesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, AllowedPerSecond, RejectedPerSecond, RejectedShare, Trend, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole, // raw numbers
        NameRole,                // the policy, in every column
        AllowedTrendRole,        // Trend column: allowed/s of the last kTrendPoints samples (QList<qreal>)
        RejectedTrendRole,       // ... and rejected/s
    };
    static constexpr int kTrendPoints = 60;

    explicit PolicyRatesModel(PolicyRateSampler *sampler, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int rowOf(const QString &policy) const;
    // Policies in shadow mode: their rejections are calls they would reject and let through, so their
    // rows say so, show those figures in brackets and rank them as rejecting nothing.
    void setShadowPolicies(const QSet<QString> &policies);

private:
    struct Row {
        PolicyRate rate;
        QList<qreal> allowedTrend;
        QList<qreal> rejectedTrend;
    };
    void takeSample(const RateSample &sample);
    Row rowFor(const PolicyRate &rate, const RateSample &sample) const;

    PolicyRateSampler *m_sampler;
    QVector<Row> m_rows;
    QSet<QString> m_shadow;
};

} // namespace sluice::model
