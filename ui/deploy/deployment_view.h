// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/deploy/library_watch.h"
#include "model/tables/deployment_model.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QAction;
class QPushButton;
class QTableView;

namespace sluice::ui {

// The Deployment tab: what was published (version, digest, by whom), each primary's library
// against it (drift), a warning when the stored policies differ from it or a primary keeps no
// persistence, a publish with progress node by node, always after a review of what it changes, and
// a dry run that shows the same review without loading anything.
class DeploymentView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit DeploymentView(model::ConnectionSession *session, QWidget *parent = nullptr);

    model::DeploymentModel *deploymentModel() const { return m_model; }

    void refresh();
    void publish();
    void dryRun();
    // Refresh (the window's F5 when this tab is in front) and Dry run (also in the Limiter menu).
    QAction *refreshAction() const { return m_refreshAction; }
    QAction *dryRunAction() const { return m_dryRunAction; }

Q_SIGNALS:
    void published();

private:
    void followSession(model::ConnectionSession *session);
    // Reads what a publish would change, then shows it for review (`then` on the preview read).
    void review(std::function<void(const model::PublishPreview &)> then);
    // Publishes exactly the reviewed library (its digest). A publish the publisher refuses (no policy
    // served, policies in use dropped) is asked about, then sent again with the operator's allowance.
    void publishAllowing(const QByteArray &reviewedDigest, const model::PublishAllowance &allowance);
    void showStatus(const model::DeploymentStatus &status);
    void updateActions();

    QPointer<model::ConnectionSession> m_session;
    model::DeploymentModel *m_model;
    QLabel *m_record;
    QLabel *m_warning;
    QTableView *m_table;
    QLabel *m_status;
    QPushButton *m_refresh, *m_dryRun, *m_publish;
    QAction *m_refreshAction, *m_dryRunAction;
    bool m_publishing = false;
    qint64 m_publishedToEvery = 0; // the version m_status says runs on every primary, 0 when it says not that
};

} // namespace sluice::ui
