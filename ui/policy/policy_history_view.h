// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/audit_follower.h"
#include "model/tables/audit_model.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QAction;
class QPushButton;
class QTableView;

namespace sluice::ui {

// The History tab: the audit log overall or for one policy (who, when, what changed), a diff
// between any two versions, and a rollback to an earlier version, which is itself audited. While it
// is in view it follows the log: an entry anyone writes shows up within seconds.
class PolicyHistoryView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit PolicyHistoryView(model::ConnectionSession *session, QWidget *parent = nullptr);
    // Reads the log again (the window's F5 when this tab is in front).
    QAction *refreshAction() const { return m_refreshAction; }

    // Shows one policy's history (every entry when empty) and rereads it.
    void showPolicy(const QString &policy);
    void refresh();

    model::AuditModel *auditModel() const { return m_model; }
    QTableView *table() const { return m_table; }
    // Compares the two selected entries' versions (or one entry's before and after).
    void compareSelected();
    // Restores the selected entry's version of its policy, after a diff and the write gate.
    void rollBackSelected();

Q_SIGNALS:
    void changed();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    QVector<int> selectedRows() const;
    void updateActions();

    QPointer<model::ConnectionSession> m_session;
    model::AuditFollower *m_follower = nullptr; // the session's log, while this view is shown
    model::AuditModel *m_model;
    QComboBox *m_policyFilter;
    QTableView *m_table;
    QPushButton *m_compare, *m_rollback, *m_refresh;
    QAction *m_refreshAction;
    QLabel *m_status;
    QString m_policy;
    QString m_notice; // what the last action did, shown above the next reading's count
};

} // namespace sluice::ui
