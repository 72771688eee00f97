// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/monitor/subject_reader.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace sluice::ui {

// One subject across every policy: each policy's bucket of it (what is left, when it is full again, its
// counters, the rules that apply to it) and what the library would decide for a call of it now, read every
// second while the tab is in front; one bucket or all of them can be reset (confirmed, audited).
class SubjectView : public QWidget {
    Q_OBJECT
public:
    enum Column {
        PolicyColumn,
        DecisionColumn, // what a call of cost 1 would get now
        AvailableColumn,
        FullInColumn,
        RulesColumn,
        AllowedColumn,
        RejectedColumn,
        ColumnCount
    };

    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit SubjectView(model::ConnectionSession *session, QWidget *parent = nullptr);

    // Shows `subject` (also typed in the form), or says why not.
    bool showSubject(const QByteArray &subject);
    model::SubjectReader *reader() const { return m_reader; }
    QTableWidget *table() const { return m_table; }
    QString statusText() const;
    QString errorText() const;

Q_SIGNALS:
    void watchRequested(const QString &policy, const QByteArray &subject);
    void bucketReset(); // the audit log has a new entry

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    void takePolicies(const model::RateSample &sample);
    void rebuildRows();
    void showReadings();
    void showRow(int row, const model::SubjectBucket &bucket);
    void updateActions();
    QString selectedPolicy() const;
    void resetSelected();
    void resetAll();
    void startResets(const QByteArray &subject, const QStringList &policies);
    void resetNext(const QByteArray &subject, QStringList policies, QStringList failed, int done);
    void showError(const QString &error);

    QPointer<model::ConnectionSession> m_session;
    model::SubjectReader *m_reader = nullptr;
    QString m_notice; // what the last reset did
    QLineEdit *m_subject;
    QPushButton *m_show;
    QLabel *m_error;
    QLabel *m_heading;
    QTableWidget *m_table;
    QLabel *m_status;
    QPushButton *m_watch;
    QPushButton *m_reset;
    QPushButton *m_resetAll;
};

} // namespace sluice::ui
