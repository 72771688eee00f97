// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/library_publisher.h"

#include <QAbstractTableModel>

namespace sluice::model {

// Each primary's limiter library as a table, with a publish's progress node by node.
class DeploymentModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Node, State, Version, Digest, Persistence, Detail, Libraries, ColumnCount };
    // true when the node runs the published library, false when it drifted, null while loading.
    static constexpr int HealthyRole = Qt::UserRole;

    explicit DeploymentModel(QObject *parent = nullptr);

    void setNodes(const QVector<NodeLibrary> &nodes);
    // A publish starts: these nodes show as loading until each one's result arrives.
    void startPublish(const QStringList &nodes);
    void setNodeResult(const NodeLibrary &node);
    bool isPending(int row) const { return m_rows.at(row).pending; }
    const NodeLibrary &node(int row) const { return m_rows.at(row).library; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        NodeLibrary library;
        bool pending = false;
    };
    void sortByAddress();
    QVector<Row> m_rows;
};

} // namespace sluice::model
