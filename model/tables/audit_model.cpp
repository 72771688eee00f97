// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/audit_model.h"

#include <QDateTime>

namespace sluice::model {

AuditModel::AuditModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void AuditModel::setEntries(const QVector<AuditEntry> &entries)
{
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditEntry &entry = m_entries.at(index.row());
    if (role == Qt::ToolTipRole && index.column() == Change)
        return entry.changeText();
    if (role != Qt::DisplayRole)
        return {};
    switch (static_cast<Column>(index.column())) {
    case When: return QDateTime::fromMSecsSinceEpoch(entry.atMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Who: return entry.who;
    case PolicyColumn: return auditSubjectText(entry);
    case Action: return entry.action;
    case Version: return entry.version > 0 ? QVariant(entry.version) : QVariant(); // a bucket reset changes no version
    case Change: return entry.changeText();
    case ColumnCount: break;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case When: return tr("When");
    case Who: return tr("Who");
    case PolicyColumn: return tr("Policy");
    case Action: return tr("Action");
    case Version: return tr("Version");
    case Change: return tr("Change");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sluice::model
