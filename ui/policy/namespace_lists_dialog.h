// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/namespace_lists.h"
#include "ui/widgets/state_palette.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QPushButton;

namespace sluice::ui {

class SubjectRulesTable;

// Edits the namespace's allow and deny lists: read when it opens (the table waits, the GUI does not), then
// saved like a policy: a review of what changes, the write gate, and a save on the version read; when
// someone saved in between it says so and offers to reload.
class NamespaceListsDialog : public QDialog {
    Q_OBJECT
public:
    NamespaceListsDialog(model::ConnectionSession *session, QWidget *parent = nullptr);

    SubjectRulesTable *table() const { return m_table; }
    // Starts the save (review, gate, commit); what the Save button does.
    void save();

Q_SIGNALS:
    void saved(qint64 version);

private:
    void load();
    void commit(const QVector<model::SubjectOverride> &entries);
    void setStatus(const QString &message, Tone tone);
    void updateSaveButton();

    QPointer<model::ConnectionSession> m_session;
    std::optional<model::NamespaceLists> m_base; // as read; none until the read answers
    bool m_writable = true;
    SubjectRulesTable *m_table;
    QLabel *m_status;
    QPushButton *m_reload;
    QPushButton *m_saveButton;
};

} // namespace sluice::ui
