// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/connection/secret_store.h"
#include "model/monitor/server_monitor.h"
#include "ui/widgets/state_palette.h"
#include "ui/window/window_state.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <memory>

class QLabel;
class QMenu;
class QSettings;
class QTabWidget;

namespace sluice::ui {

class DeploymentView;
class FireView;
class HelpWindow;
class PolicyHistoryView;
class TuneView;
class KeyInspectorView;
class SubjectView;
class KeyWatchView;
class PolicyLiveView;
class PolicyPanel;
class PolicyRatesTable;
class ServerOverview;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Where connection profiles and their secrets live; without it there is no connection manager.
    void setProfileStorage(QSettings *settings, model::SecretStore *secrets);
    // Takes the session over (and closes the previous one, after the views that showed it); the window shows
    // its profile, state and drift, in views built anew for it.
    void setSession(std::unique_ptr<model::ConnectionSession> session);
    model::ConnectionSession *session() const { return m_session.get(); }
    // Where sessions on saved profiles keep their rate history between runs (none when empty: the
    // sandbox and --url connections keep none).
    void setRateHistoryDirectory(const QString &directory) { m_rateHistoryDirectory = directory; }
    // A session on a saved profile, keeping its rate history; the window takes it over.
    void openProfileSession(const model::ConnectionProfile &profile, const model::ConnectionSecrets &secrets);
    // The window works before it has a server (the sandbox may still be starting).
    void setMonitor(model::ServerMonitor *monitor);
    // Before any session: what the window is doing. Starting: something is on its way (the sandbox, a
    // keychain read); Waiting: nothing connects until the operator acts; Failed: it could not start.
    enum class StartupState { Starting, Waiting, Failed };
    void showStartupMessage(const QString &message, StartupState state);

    // Splitter positions to give these views and the ones each connection switch builds (window_state.h).
    void setSplitterStates(const SplitterStates &states);

    void openConnectionManager();
    // Shows the Deployment tab and publishes there (behind the write gate).
    void publishLibrary();

    ServerOverview *serverOverview() const { return m_overview; }
    PolicyRatesTable *policyRates() const { return m_rates; }
    PolicyLiveView *liveView() const { return m_live; }
    KeyWatchView *keyWatchView() const { return m_keyWatch; }
    KeyInspectorView *keyInspector() const { return m_inspector; }
    SubjectView *subjectView() const { return m_subject; }
    FireView *fireView() const { return m_fire; }
    PolicyPanel *policyPanel() const { return m_policies; }
    DeploymentView *deploymentView() const { return m_deployment; }
    PolicyHistoryView *historyView() const { return m_history; }
    TuneView *tuneView() const { return m_tune; }
    HelpWindow *helpWindow() const { return m_help; }

private:
    void createViews();
    void deleteViews();
    void showHealth(model::ServerMonitor::Health health, const QString &problem);
    // The status bar's state: "● " and the word, in the tone's colour.
    void showState(const QString &text, Tone tone);
    void showStatus(const model::ServerStatus &status);
    void showNodeStates();
    void showLibraryReport(const model::LibraryWatch::Report &report);
    // The shipped docs at a page ("tuning.md") or section ("user-guide.md#test-fire"), in one help window.
    void showHelp(const QString &pageAndSection);
    void showAbout();
    void addViewActions();

    QTabWidget *m_tabs = nullptr;
    ServerOverview *m_overview = nullptr;
    PolicyRatesTable *m_rates = nullptr;
    PolicyLiveView *m_live = nullptr;
    KeyWatchView *m_keyWatch = nullptr;
    KeyInspectorView *m_inspector = nullptr;
    SubjectView *m_subject = nullptr;
    FireView *m_fire = nullptr;
    PolicyPanel *m_policies = nullptr;
    DeploymentView *m_deployment = nullptr;
    PolicyHistoryView *m_history = nullptr;
    TuneView *m_tune = nullptr;
    QPointer<model::ServerMonitor> m_monitor; // may go with the session that owned it
    std::unique_ptr<model::ConnectionSession> m_session;
    QSettings *m_settings = nullptr;
    model::SecretStore *m_secrets = nullptr;
    QString m_rateHistoryDirectory;
    QAction *m_connectionsAction = nullptr;
    QAction *m_publishAction = nullptr;
    QMenu *m_fileMenu = nullptr;
    QMenu *m_limiterMenu = nullptr;
    QAction *m_fileViewActions = nullptr; // where the views' File entries go
    QAction *m_refreshAction = nullptr;
    QHash<QWidget *, QAction *> m_tabRefreshActions; // each tab's own Refresh, for F5
    QHash<QWidget *, QString> m_tabHelpSections;     // each tab's section of the docs, for F1
    HelpWindow *m_help = nullptr;                    // made on first use
    SplitterStates m_splitterStates;                 // carried from the views a switch deletes to the next
    QLabel *m_driftBanner = nullptr;
    QLabel *m_profileLabel = nullptr;
    QLabel *m_stateLabel = nullptr;
    QLabel *m_nodesLabel = nullptr;
    QLabel *m_versionLabel = nullptr;
    QLabel *m_modeLabel = nullptr;
    QLabel *m_memoryLabel = nullptr;
    QLabel *m_clientsLabel = nullptr;
};

} // namespace sluice::ui
