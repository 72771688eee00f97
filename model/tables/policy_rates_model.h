// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/policy_rate_sampler.h"
#include "model/monitor/rule_counts.h"
#include "model/monitor/top_subjects.h"
#include "model/policy/policy.h"

#include <QAbstractTableModel>
#include <QSet>

namespace sluice::model {

// Every policy's live rates as a table, one row per policy in name order, updated in place at each
// sample (rows merge by name, so a view's selection and sort stay put).
class PolicyRatesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        Limit,
        AllowedPerSecond,
        RejectedPerSecond,
        RejectedShare,
        TopSubject,
        Blocked, // subjects a penalty blocks now (RuleCounts); "–" for a policy without rules
        Trend,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // raw numbers
        NameRole,                // the policy, in every column
        AllowedTrendRole,        // Trend column: allowed/s of the last kTrendPoints samples (QList<qreal>)
        RejectedTrendRole,       // ... and rejected/s (empty for a shadow policy); NaN where nothing was sampled
        WouldRejectTrendRole,    // ... and a shadow policy's would-rejects (empty for the others)
        StaleRole,               // true while the figures are older than a sample that failed, or partial
        SubjectRole,             // TopSubject column: the most rejected subject (QByteArray), empty if none
    };
    static constexpr int kTrendPoints = 60;

    explicit PolicyRatesModel(PolicyRateSampler *sampler, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int rowOf(const QString &policy) const;
    // The published definitions: each row's limit in words. Policies in shadow mode: their rejections
    // are calls they would reject and let through, so their rows say so, show those figures in
    // brackets and rank them as rejecting nothing.
    void setPublished(const QVector<Policy> &policies);
    // Where each row's most rejected subject comes from.
    void setTopSubjects(const TopSubjects *top);
    // Where each row's subject rules at work come from.
    void setRuleCounts(const RuleCounts *rules);
    // Why the figures shown are not the present's, empty while they are: "no answer from X since 12:03:41".
    QString staleText() const { return m_staleText; }

private:
    struct Row {
        PolicyRate rate;
        QList<qreal> allowedTrend;
        QList<qreal> rejectedTrend;
    };
    void takeSample(const RateSample &sample);
    Row rowFor(const PolicyRate &rate, const RateSample &sample) const;
    void setStale(const QString &text);

    PolicyRateSampler *m_sampler;
    QVector<Row> m_rows;
    QSet<QString> m_shadow;
    QHash<QString, QString> m_limits;   // in words, by policy
    QHash<QString, double> m_predicted; // a shadow twin's predicted share rejected, by policy
    const TopSubjects *m_top = nullptr;
    const RuleCounts *m_rules = nullptr;
    QString m_staleText;
    qint64 m_lastSampleEndMs = 0;
};

} // namespace sluice::model
