// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/deploy/library_watch.h"
#include "model/tables/policy_list_model.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QAction;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace sluice::ui {

// The Policies tab: the stored policies in a sortable table with search as you type, whether each
// runs in the published library, and the actions on them (new, edit, delete, history, import,
// export). While in front it rereads the store every few seconds, so a colleague's save shows up.
class PolicyPanel : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit PolicyPanel(model::ConnectionSession *session, QWidget *parent = nullptr);

    void refresh();

    // Import and export, as the File menu and this tab's buttons both offer them.
    QAction *importAction() const { return m_importAction; }
    QAction *exportAction() const { return m_exportAction; }

    model::PolicyListModel *listModel() const { return m_model; }
    QTableView *table() const { return m_table; }
    // The selected policy's name (empty when none).
    QString selectedName() const;
    void selectPolicy(const QString &name);

    void newPolicy();
    void openLists();
    void editSelected();
    void deleteSelected();
    void importFile(const QString &path);
    // Writes the stored policies in the file format; an empty string on success, else the reason.
    QString exportTo(const QString &path) const;

Q_SIGNALS:
    void historyRequested(const QString &policy);
    void publishRequested();
    void changed(); // this panel wrote to the store

protected:
    void showEvent(QShowEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    void showLibraryReport(const model::LibraryWatch::Report &report);
    void updateActions();
    void afterWrite(const QString &select);
    void openEditor(const std::optional<model::Policy> &policy);

    QPointer<model::ConnectionSession> m_session;
    model::PolicyListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QLineEdit *m_search;
    QLabel *m_publishWarning;
    QLabel *m_status;
    QPushButton *m_new, *m_edit, *m_delete, *m_history, *m_import, *m_export, *m_lists;
    QAction *m_importAction, *m_exportAction;
    QTimer m_refreshTimer;
    bool m_refreshing = false;
};

} // namespace sluice::ui
