// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/tables/key_inspector_model.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QAction;
class QPushButton;
class QTableView;

namespace sluice::ui {

// The key inspector: the bucket keys of the connection's namespace, browsed with SCAN a page at a
// time as the table scrolls, filtered by policy and subject pattern, each row decoded by the
// library; a bucket can be reset (confirmed, audited) or put on the watch list.
class KeyInspectorView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit KeyInspectorView(model::ConnectionSession *session, QWidget *parent = nullptr);
    // Reads every bucket shown again (the window's F5 when this tab is in front).
    QAction *refreshAction() const { return m_refreshAction; }

    // Browses with the form's filter; false (and why, shown) when the filter is refused.
    bool scan();
    model::KeyInspectorModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString statusText() const;
    QString errorText() const;

Q_SIGNALS:
    void watchRequested(const QString &policy, const QByteArray &subject);
    void subjectRequested(const QByteArray &subject); // the By subject tab, for the selected bucket's subject
    void bucketReset();                               // the audit log has a new entry

protected:
    void showEvent(QShowEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    void updatePolicies(const model::RateSample &sample);
    void updateStatus();
    void updateActions();
    void resetSelected();
    int selectedRow() const;
    void showError(const QString &error);

    QPointer<model::ConnectionSession> m_session;
    model::KeyInspectorModel *m_model = nullptr;
    bool m_browsed = false;
    QString m_notice; // what the last reset did, kept under the scan's status
    QComboBox *m_policy;
    QLineEdit *m_pattern;
    QPushButton *m_scan;
    QLabel *m_error;
    QTableView *m_table;
    QLabel *m_status;
    QPushButton *m_more;
    QPushButton *m_watch;
    QPushButton *m_showSubject;
    QPushButton *m_reset;
    QPushButton *m_refresh;
    QAction *m_refreshAction;
};

} // namespace sluice::ui
