// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_overrides.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace sluice::ui {

// Edits subject rules as a table: a policy's overrides (a limit and burst, allow or deny per subject or
// prefix) or, without limits, a namespace's allow and deny lists. Rows are added, removed, imported from
// a CSV file (pattern,allow | pattern,deny | pattern,limit[,burst]) and searched; each row is checked as it
// is typed, the problem named under the table.
class SubjectRulesTable : public QWidget {
    Q_OBJECT
public:
    // limits: whether a rule may set a limit (a policy's overrides) or only allow and deny (lists).
    explicit SubjectRulesTable(bool limits, QWidget *parent = nullptr);

    void setRules(const QVector<model::SubjectOverride> &rules);
    // The rules typed, sorted; nullopt and the problem (naming the row) while any row is wrong.
    std::optional<QVector<model::SubjectOverride>> rules(QString *problem) const;
    // Whether the burst column shows (a policy whose algorithm reads a burst).
    void setBurstShown(bool shown);
    void setEditable(bool editable);
    // Adds the rules of a CSV file, a rule for the same pattern replacing the row's; the problem, or empty.
    QString importCsv(const QString &path);
    // Shows a problem found outside the table (the policy's bounds for an override), or clears it.
    void setOuterProblem(const QString &problem);

Q_SIGNALS:
    void changed();

private:
    enum Column { Pattern, Rule, Limit, Burst, ColumnCount };
    // Reads every row (once per change: rules() answers from it).
    std::optional<QVector<model::SubjectOverride>> readRows(QString *problem) const;
    void appendRow(const model::SubjectOverride &rule);
    void addEmptyRow();
    void removeSelected();
    void filter();
    void rowsChanged();
    void showProblem();

    bool m_limits;
    bool m_editable = true;
    QString m_outerProblem;
    QString m_importProblem;                                // until the table is edited again
    std::optional<QVector<model::SubjectOverride>> m_rules; // the rows as last read
    QString m_rowProblem;
    QLineEdit *m_search;
    QTableWidget *m_table;
    QPushButton *m_add;
    QPushButton *m_remove;
    QPushButton *m_import;
    QLabel *m_count;
    QLabel *m_problem;
};

} // namespace sluice::ui
