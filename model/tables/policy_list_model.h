// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QAbstractTableModel>

namespace sluice::model {

// The stored policies as a table, one row per policy in name order, with whether each one runs in
// the published library. Updates merge by name, so rows (and a view's selection) stay put while
// the list refreshes.
class PolicyListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        AlgorithmColumn,
        Limit,
        Window,
        Burst,
        Shadow,
        Version,
        UpdatedBy,
        UpdatedAt,
        Published,
        Description,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // the raw value, so numbers and times sort as such
        NameRole,                // the policy's name, in every column
        PublishStateRole,        // the row's PublishState (as an int), in every column
    };
    enum class PublishState { Unknown, Published, ChangedSincePublish, NotPublished };

    explicit PolicyListModel(QObject *parent = nullptr);

    void setPolicies(QVector<Policy> policies);
    // The definitions the published library runs; known = false when the record does not say.
    void setPublished(const QVector<Policy> &published, bool known);

    const QVector<Policy> &policies() const { return m_policies; }
    std::optional<Policy> policy(const QString &name) const;
    PublishState publishState(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static bool sameRow(const Policy &a, const Policy &b);

    QVector<Policy> m_policies;
    QVector<Policy> m_published;
    bool m_publishedKnown = false;
};

} // namespace sluice::model
