// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/policy_file.h"
#include "model/policy/policy_plan.h"

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace sluice::ui {

// Imports a policy file (the format of `sluicectl apply`): a malformed file lists every problem
// and can be applied not at all; a good one previews what would be created, updated, left alone
// or (with prune) deleted, and applies all of it in one commit or nothing.
class PolicyImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit PolicyImportDialog(model::ConnectionSession *session, QWidget *parent = nullptr);

    void loadFile(const QString &path);
    void loadJson(const QByteArray &json, const QString &source);
    bool canApply() const;
    void apply();

Q_SIGNALS:
    void applied(const QStringList &changed);

private:
    // notice: why the plan is made again, shown above it.
    void readStoredAndPlan(const QString &notice = {});
    void showPlan();
    void showProblems(const QString &heading, const QStringList &problems);

    QPointer<model::ConnectionSession> m_session;
    model::PolicyFile m_file;
    model::PolicyStore::ListResult m_stored;
    bool m_planned = false;
    model::PolicyPlan m_plan;
    QString m_notice;

    QLabel *m_source;
    QLabel *m_summary;
    QListWidget *m_errors;
    QTableWidget *m_preview;
    QCheckBox *m_prune;
    QPushButton *m_apply;
    QPushButton *m_reread;
    QString m_path; // the file read last, empty for JSON given directly
};

} // namespace sluice::ui
