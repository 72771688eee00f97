// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/window/main_window.h"

#include "model/deploy/library_publisher.h"
#include "model/format/units.h"
#include "model/policy/operator_identity.h"
#include "ui/connection/connection_manager.h"
#include "ui/deploy/deployment_view.h"
#include "ui/fire/fire_view.h"
#include "ui/help/help_window.h"
#include "ui/help/shortcuts_dialog.h"
#include "ui/monitor/key_inspector_view.h"
#include "ui/monitor/key_watch_view.h"
#include "ui/monitor/policy_live_view.h"
#include "ui/monitor/policy_rates_table.h"
#include "ui/monitor/server_overview.h"
#include "ui/monitor/subject_view.h"
#include "ui/policy/policy_history_view.h"
#include "ui/policy/policy_panel.h"
#include "ui/tune/tune_view.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/state_palette.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace sluice::ui {

using model::ServerMonitor;
using model::ServerStatus;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("Sluice"));
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_driftBanner = new Banner(Tone::Error, QStringLiteral("driftBanner"), central);
    m_driftBanner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_driftBanner->hide();
    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->setDocumentMode(true);
    createViews();
    layout->addWidget(m_driftBanner);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    QMenu *fileMenu = m_fileMenu = menuBar()->addMenu(tr("&File"));
    m_connectionsAction = fileMenu->addAction(tr("&Connections\u2026"));
    m_connectionsAction->setObjectName(QStringLiteral("connectionsAction"));
    m_connectionsAction->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
    m_connectionsAction->setEnabled(false);
    connect(m_connectionsAction, &QAction::triggered, this, &MainWindow::openConnectionManager);
    fileMenu->addSeparator();
    m_fileViewActions = fileMenu->addSeparator(); // the Policies tab's Import and Export go before it
    QAction *quit = fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    // Each tab on Ctrl+1..9, then Ctrl+0 for the tenth, in tab order; its mnemonic (Alt+letter) is one no menu
    // takes.
    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    for (int index = 0; index < m_tabs->count(); ++index) {
        QAction *showTab = viewMenu->addAction(m_tabs->tabText(index));
        if (index < 10)
            showTab->setShortcut(
                QKeySequence(Qt::CTRL | static_cast<Qt::Key>(index < 9 ? Qt::Key_1 + index : Qt::Key_0)));
        connect(showTab, &QAction::triggered, m_tabs, [this, index] { m_tabs->setCurrentIndex(index); });
    }
    viewMenu->addSeparator();
    // F5 reads the tab in front again, where a tab has something to read again: on wherever it has (its
    // Refresh may be busy a moment, the shortcut must not die with it), pressing it only when it is enabled.
    m_refreshAction = viewMenu->addAction(tr("&Refresh"));
    m_refreshAction->setObjectName(QStringLiteral("refreshAction"));
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    connect(m_refreshAction, &QAction::triggered, this, [this] {
        QAction *tabRefresh = m_tabRefreshActions.value(m_tabs->currentWidget());
        if (tabRefresh && tabRefresh->isEnabled())
            tabRefresh->trigger();
    });
    connect(m_tabs, &QTabWidget::currentChanged, m_refreshAction,
            [this] { m_refreshAction->setEnabled(m_tabRefreshActions.contains(m_tabs->currentWidget())); });
    m_limiterMenu = menuBar()->addMenu(tr("&Limiter"));
    m_publishAction = m_limiterMenu->addAction(tr("&Publish library\u2026"));
    m_publishAction->setObjectName(QStringLiteral("publishAction"));
    m_publishAction->setEnabled(false);
    connect(m_publishAction, &QAction::triggered, this, &MainWindow::publishLibrary);
    addViewActions();
    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *guide = helpMenu->addAction(tr("&User guide"));
    guide->setObjectName(QStringLiteral("userGuideAction"));
    guide->setShortcut(QKeySequence::HelpContents);
    guide->setToolTip(tr("The user guide, at the section about the tab in front"));
    connect(guide, &QAction::triggered, this,
            [this] { showHelp(m_tabHelpSections.value(m_tabs->currentWidget(), QStringLiteral("user-guide.md"))); });
    QAction *shortcuts = helpMenu->addAction(tr("&Keyboard shortcuts"));
    shortcuts->setObjectName(QStringLiteral("shortcutsAction"));
    connect(shortcuts, &QAction::triggered, this, [this] {
        auto *dialog = new ShortcutsDialog(windowShortcuts(*this, *m_tabs), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    helpMenu->addSeparator();
    connect(helpMenu->addAction(tr("&About Sluice")), &QAction::triggered, this, &MainWindow::showAbout);

    auto addStatusField = [this](const QString &name) {
        auto *label = new QLabel(this);
        label->setObjectName(name);
        label->setContentsMargins(6, 0, 6, 0);
        statusBar()->addPermanentWidget(label);
        return label;
    };
    m_profileLabel = addStatusField(QStringLiteral("statusProfile"));
    m_stateLabel = addStatusField(QStringLiteral("statusState"));
    m_nodesLabel = addStatusField(QStringLiteral("statusNodes"));
    m_nodesLabel->setStyleSheet(textStyle(Tone::Warning));
    m_nodesLabel->hide();
    m_versionLabel = addStatusField(QStringLiteral("statusVersion"));
    m_modeLabel = addStatusField(QStringLiteral("statusMode"));
    m_memoryLabel = addStatusField(QStringLiteral("statusMemory"));
    m_clientsLabel = addStatusField(QStringLiteral("statusClients"));
    m_stateLabel->setText(tr("Not connected"));
    resize(960, 600);
}

// The tabs' own commands in the menus: the same QActions their buttons press, so each is one command with
// one enabled state. A view's actions leave the menus with it; the next views' take their places.
void MainWindow::addViewActions()
{
    m_fileMenu->insertActions(m_fileViewActions, {m_policies->importAction(), m_policies->exportAction()});
    m_limiterMenu->addAction(m_deployment->dryRunAction());
    m_tabRefreshActions = {{m_inspector, m_inspector->refreshAction()},
                           {m_deployment, m_deployment->refreshAction()},
                           {m_history, m_history->refreshAction()}};
    m_refreshAction->setEnabled(m_tabRefreshActions.contains(m_tabs->currentWidget()));
}

// Every tab starts empty: nothing in it comes from a server until a session reports.
void MainWindow::createViews()
{
    model::ConnectionSession *session = m_session.get();
    m_overview = new ServerOverview(m_tabs);
    if (session)
        m_overview->followDiagnostics(session->pollDiagnostics(5000, m_overview));
    m_rates = new PolicyRatesTable(session, m_overview);
    m_overview->setLiveSection(m_rates);
    m_live = new PolicyLiveView(session, m_tabs);
    m_keyWatch = new KeyWatchView(session, m_tabs);
    m_inspector = new KeyInspectorView(session, m_tabs);
    m_subject = new SubjectView(session, m_tabs);
    m_fire = new FireView(session, m_tabs);
    m_policies = new PolicyPanel(session, m_tabs);
    m_deployment = new DeploymentView(session, m_tabs);
    m_history = new PolicyHistoryView(session, m_tabs);
    m_tune = new TuneView(session, m_tabs);
    // Each tab with the docs' section about it, for F1.
    const auto addTab = [this](QWidget *view, const QString &title, const QString &helpSection) {
        m_tabs->addTab(view, title);
        m_tabHelpSections.insert(view, helpSection);
    };
    m_tabHelpSections.clear();
    addTab(m_overview, tr("&Overview"), QStringLiteral("user-guide.md#live-monitoring"));
    addTab(m_live, tr("Liv&e"), QStringLiteral("user-guide.md#live-monitoring"));
    addTab(m_keyWatch, tr("&Watched keys"), QStringLiteral("user-guide.md#live-monitoring"));
    addTab(m_inspector, tr("Key &inspector"), QStringLiteral("user-guide.md#key-inspector"));
    addTab(m_subject, tr("B&y subject"), QStringLiteral("user-guide.md#one-subject-under-every-policy"));
    addTab(m_fire, tr("&Test fire"), QStringLiteral("user-guide.md#test-fire"));
    addTab(m_policies, tr("&Policies"), QStringLiteral("user-guide.md#policies-in-the-dashboard"));
    addTab(m_deployment, tr("&Deployment"), QStringLiteral("user-guide.md#publishing-from-the-dashboard"));
    addTab(m_history, tr("Hi&story"), QStringLiteral("user-guide.md#policies-in-the-dashboard"));
    addTab(m_tune, tr("T&une"), QStringLiteral("tuning.md"));
    connect(m_tune, &TuneView::publishRequested, this, &MainWindow::publishLibrary);
    connect(m_rates, &PolicyRatesTable::policyActivated, this, [this](const QString &policy) {
        m_live->showPolicy(policy);
        m_tabs->setCurrentWidget(m_live);
    });
    const auto watchSubject = [this](const QString &policy, const QByteArray &subject) {
        m_keyWatch->watchSubject(policy, subject);
        m_tabs->setCurrentWidget(m_keyWatch);
    };
    connect(m_live, &PolicyLiveView::watchRequested, this, watchSubject);
    connect(m_rates, &PolicyRatesTable::watchRequested, this, watchSubject);
    connect(m_inspector, &KeyInspectorView::watchRequested, this, watchSubject);
    connect(m_inspector, &KeyInspectorView::bucketReset, m_history, &PolicyHistoryView::refresh);
    connect(m_subject, &SubjectView::watchRequested, this, watchSubject);
    connect(m_subject, &SubjectView::bucketReset, m_history, &PolicyHistoryView::refresh);
    connect(m_inspector, &KeyInspectorView::subjectRequested, this, [this](const QByteArray &subject) {
        m_subject->showSubject(subject);
        m_tabs->setCurrentWidget(m_subject);
    });
    connect(m_policies, &PolicyPanel::historyRequested, this, [this](const QString &policy) {
        m_history->showPolicy(policy);
        m_tabs->setCurrentWidget(m_history);
    });
    connect(m_policies, &PolicyPanel::publishRequested, this, [this] { m_tabs->setCurrentWidget(m_deployment); });
    connect(m_policies, &PolicyPanel::changed, m_history, &PolicyHistoryView::refresh);
    connect(m_history, &PolicyHistoryView::changed, m_policies, &PolicyPanel::refresh);
    connect(m_deployment, &DeploymentView::published, m_history, &PolicyHistoryView::refresh);
    restoreSplitterStates(this, m_splitterStates);
}

void MainWindow::setSplitterStates(const SplitterStates &states)
{
    m_splitterStates = states;
    restoreSplitterStates(this, states);
}

// Nothing another server showed may survive a switch: its figures, warnings, hover readouts, lists and
// choices go with the views that held them, and fresh ones wait for the new server.
void MainWindow::deleteViews()
{
    m_splitterStates.insert(splitterStates(this));
    for (QWidget *view : std::initializer_list<QWidget *>{m_overview, m_live, m_keyWatch, m_inspector, m_subject,
                                                          m_fire, m_policies, m_deployment, m_history, m_tune})
        delete view; // its tab goes with it
}

MainWindow::~MainWindow()
{
    // The session's last replies may still report to the window: close it while the window is whole.
    m_session.reset();
}

void MainWindow::setProfileStorage(QSettings *settings, model::SecretStore *secrets)
{
    m_settings = settings;
    m_secrets = secrets;
    m_connectionsAction->setEnabled(settings && secrets);
}

void MainWindow::setSession(std::unique_ptr<model::ConnectionSession> owned)
{
    const int shownTab = m_tabs->currentIndex();
    if (m_fire && m_fire->isRunning()) {
        m_fire->stop();
        statusBar()->showMessage(tr("Test fire stopped: the dashboard switched to another connection."), 15000);
    }
    deleteViews(); // while the old session is whole: they let go of it first
    m_session = std::move(owned);
    model::ConnectionSession *session = m_session.get();
    createViews();
    addViewActions();
    m_tabs->setCurrentIndex(shownTab);
    setMonitor(session->monitor());
    const model::ConnectionProfile &profile = session->profile();
    if (m_settings && !profile.name.isEmpty()) { // a saved profile's choices outlive switches and restarts
        m_keyWatch->keepListIn(m_settings, profile.name);
        m_fire->keepChoicesIn(m_settings, profile.name);
    }
    QStringList badges{session->label()};
    if (profile.environment != model::ConnectionProfile::Environment::Dev)
        badges << model::ConnectionProfile::environmentName(profile.environment).toUpper();
    if (profile.readOnly)
        badges << tr("read-only");
    m_profileLabel->setText(badges.join(QStringLiteral(" \u00b7 ")));
    m_profileLabel->setStyleSheet(profile.writesNeedConfirmation() ? textStyle(Tone::Error, true) : QString());
    m_publishAction->setEnabled(!profile.readOnly);
    m_publishAction->setToolTip(profile.readOnly ? tr("This connection is read-only.") : QString());
    m_driftBanner->hide();
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this, &MainWindow::showLibraryReport);
    connect(session, &model::ConnectionSession::nodesChanged, this, &MainWindow::showNodeStates);
    session->start();
}

void MainWindow::openProfileSession(const model::ConnectionProfile &profile, const model::ConnectionSecrets &secrets)
{
    auto session = std::make_unique<model::ConnectionSession>(profile, secrets);
    if (!m_rateHistoryDirectory.isEmpty())
        session->keepRateHistory(m_rateHistoryDirectory);
    setSession(std::move(session));
    if (m_settings)
        model::ProfileSettings(m_settings).setLastUsed(profile.name); // what the next start opens
}

void MainWindow::openConnectionManager()
{
    if (!m_settings || !m_secrets)
        return;
    auto *manager = new ConnectionManager(m_settings, m_secrets, this);
    manager->setAttribute(Qt::WA_DeleteOnClose);
    manager->setRateHistoryDirectory(m_rateHistoryDirectory);
    if (m_session) {
        manager->setProfileInUse(m_session->profile().name);
        manager->selectProfile(m_session->profile().name);
    }
    connect(manager, &ConnectionManager::connectRequested, this, &MainWindow::openProfileSession);
    manager->resize(980, 620);
    manager->open();
}

void MainWindow::publishLibrary()
{
    if (!m_session)
        return;
    m_tabs->setCurrentWidget(m_deployment);
    m_deployment->publish();
}

void MainWindow::showLibraryReport(const model::LibraryWatch::Report &report)
{
    const QStringList problems = report.problems();
    m_driftBanner->setText(
        tr("<b>Limiter library drift</b><br>%1").arg(problems.join(QStringLiteral("<br>")).toHtmlEscaped()));
    m_driftBanner->setVisible(report.drift());
}

void MainWindow::setMonitor(ServerMonitor *monitor)
{
    if (m_monitor)
        disconnect(m_monitor, nullptr, this, nullptr);
    m_monitor = monitor;
    setWindowTitle(
        tr("Sluice \u2014 %1")
            .arg(m_session && m_session->monitor() == monitor ? m_session->label() : monitor->targetLabel()));
    m_overview->setMonitor(monitor);
    connect(monitor, &ServerMonitor::healthChanged, this, &MainWindow::showHealth);
    connect(monitor, &ServerMonitor::statusChanged, this, &MainWindow::showStatus);
    showHealth(monitor->health(), monitor->problem());
    for (QLabel *figure : {m_versionLabel, m_modeLabel, m_memoryLabel, m_clientsLabel})
        figure->clear(); // another server's until this one reports
    if (monitor->hasStatus())
        showStatus(monitor->status());
}

void MainWindow::showStartupMessage(const QString &message, StartupState state)
{
    m_overview->showMessage(message, state == StartupState::Failed);
    switch (state) {
    case StartupState::Starting: showState(tr("Starting"), Tone::Info); break;
    case StartupState::Waiting: showState(tr("Not connected"), Tone::Muted); break;
    case StartupState::Failed: showState(tr("Failed"), Tone::Error); break;
    }
}

void MainWindow::showState(const QString &text, Tone tone)
{
    m_stateLabel->setText(QStringLiteral("\u25cf ") + text);
    m_stateLabel->setStyleSheet(textStyle(tone));
}

void MainWindow::showHealth(ServerMonitor::Health health, const QString &problem)
{
    QString text;
    Tone tone = Tone::Info;
    switch (health) {
    case ServerMonitor::Health::Connecting: text = tr("Connecting"); break;
    case ServerMonitor::Health::Ready:
        text = tr("Connected");
        tone = Tone::Ok;
        break;
    case ServerMonitor::Health::Unreachable:
        text = tr("Unreachable");
        tone = Tone::Error;
        break;
    case ServerMonitor::Health::Failed:
        text = tr("Failed");
        tone = Tone::Error;
        break;
    }
    showState(text, tone);
    m_stateLabel->setToolTip(problem);
    showNodeStates();
}

// The deployment's state is its main node's; each node's own shows in the tooltip, and a count
// when some are not ready (a Cluster primary down while its replica takes over).
void MainWindow::showNodeStates()
{
    if (!m_session)
        return;
    const QVector<model::ConnectionSession::NodeReport> nodes = m_session->nodes();
    QStringList lines;
    int ready = 0;
    for (const model::ConnectionSession::NodeReport &node : nodes) {
        ready += node.ready;
        lines << QStringLiteral("%1 %2: %3%4")
                     .arg(node.primary ? tr("primary") : tr("node"), node.node, node.state,
                          node.ready || node.lastError.isEmpty() ? QString()
                                                                 : QStringLiteral(" (%1)").arg(node.lastError));
    }
    m_nodesLabel->setText(
        nodes.size() > 1 && ready < nodes.size() ? tr("%1 of %2 nodes ready").arg(ready).arg(nodes.size()) : QString());
    m_nodesLabel->setVisible(!m_nodesLabel->text().isEmpty());
    const QString problem = m_monitor ? m_monitor->problem() : QString();
    m_stateLabel->setToolTip(
        ((problem.isEmpty() ? QStringList() : QStringList{problem}) + lines).join(QLatin1Char('\n')));
}

void MainWindow::showStatus(const ServerStatus &status)
{
    m_versionLabel->setText(status.server.displayName());
    m_modeLabel->setText(status.server.mode);
    m_memoryLabel->setText(tr("Memory %1").arg(model::formatBytes(status.usedMemoryBytes)));
    m_clientsLabel->setText(tr("Clients %1").arg(status.connectedClients));
}

void MainWindow::showHelp(const QString &pageAndSection)
{
    if (!m_help)
        m_help = new HelpWindow(this);
    m_help->showPage(pageAndSection);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Sluice"),
                       tr("<b>Sluice %1</b><p>A control room for distributed rate limiters that run "
                          "inside Redis.</p>")
                           .arg(QApplication::applicationVersion()));
}

} // namespace sluice::ui
