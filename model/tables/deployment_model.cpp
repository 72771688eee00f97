// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/deployment_model.h"

#include "model/deploy/node_order.h"

#include <algorithm>

namespace sluice::model {

DeploymentModel::DeploymentModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DeploymentModel::setNodes(const QVector<NodeLibrary> &nodes)
{
    beginResetModel();
    m_rows.clear();
    for (const NodeLibrary &node : nodes)
        m_rows.append({node, false});
    sortByAddress();
    endResetModel();
}

void DeploymentModel::startPublish(const QStringList &nodes)
{
    beginResetModel();
    QVector<Row> rows;
    for (const QString &name : nodes) {
        Row row;
        row.library.node = name;
        for (const Row &known : std::as_const(m_rows))
            if (known.library.node == name)
                row.library = known.library;
        row.pending = true;
        rows.append(row);
    }
    m_rows = rows;
    sortByAddress();
    endResetModel();
}

void DeploymentModel::sortByAddress()
{
    std::sort(m_rows.begin(), m_rows.end(),
              [](const Row &a, const Row &b) { return listedBefore(a.library.node, b.library.node); });
}

void DeploymentModel::setNodeResult(const NodeLibrary &node)
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).library.node != node.node)
            continue;
        m_rows[row] = {node, false};
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    const auto at = std::find_if(m_rows.cbegin(), m_rows.cend(),
                                 [&](const Row &row) { return listedBefore(node.node, row.library.node); });
    const int position = int(at - m_rows.cbegin());
    beginInsertRows({}, position, position);
    m_rows.insert(position, {node, false});
    endInsertRows();
}

int DeploymentModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DeploymentModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeploymentModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const NodeLibrary &node = row.library;
    if (role == HealthyRole)
        return row.pending ? QVariant() : QVariant(node.state == NodeLibrary::State::Current);
    if (role == Qt::ToolTipRole && index.column() == Detail)
        return node.detail;
    if (role == Qt::ToolTipRole && index.column() == Libraries) {
        QStringList lines;
        for (const LoadedLibrary &library : node.libraries)
            lines << library.describe();
        return lines.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(index.column())) {
    case Node: return node.node;
    case State: return row.pending ? tr("loading\u2026") : NodeLibrary::stateName(node.state);
    case Version: return node.version > 0 ? QVariant(node.version) : QVariant(QString());
    case Digest: return QString::fromLatin1(node.digest.left(12));
    case Persistence:
        switch (node.persistence) {
        case NodeLibrary::Persistence::Unknown: return tr("unknown");
        case NodeLibrary::Persistence::None: return tr("none: a restart loses the library");
        case NodeLibrary::Persistence::Persisted: return tr("persisted");
        }
        break;
    case Detail: return node.detail;
    case Libraries: {
        // Every library the primary runs, with the namespace and database it serves.
        QStringList names;
        for (const LoadedLibrary &library : node.libraries)
            names << (library.owner ? tr("%1 (%2, db %3)")
                                          .arg(QString::fromLatin1(library.name), library.owner->ns)
                                          .arg(library.owner->database)
                                    : tr("%1 (not Sluice's)").arg(QString::fromLatin1(library.name)));
        return names.join(QStringLiteral(", "));
    }
    case ColumnCount: break;
    }
    return {};
}

QVariant DeploymentModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Node: return tr("Primary");
    case State: return tr("Library");
    case Version: return tr("Version");
    case Digest: return tr("Digest");
    case Persistence: return tr("Persistence");
    case Detail: return tr("Detail");
    case Libraries: return tr("All libraries");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sluice::model
