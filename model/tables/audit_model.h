// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/audit_log.h"

#include <QAbstractTableModel>

namespace sluice::model {

// Audit entries as a table, newest first.
class AuditModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { When, Who, PolicyColumn, Action, Version, Change, ColumnCount };

    explicit AuditModel(QObject *parent = nullptr);

    void setEntries(const QVector<AuditEntry> &entries);
    const AuditEntry &entry(int row) const { return m_entries.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<AuditEntry> m_entries;
};

} // namespace sluice::model
