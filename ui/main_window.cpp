#include "ui/main_window.h"

#include "ui/server_overview.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace sluice::ui {

using model::ServerMonitor;
using model::ServerStatus;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("Sluice"));
    m_overview = new ServerOverview(this);
    setCentralWidget(m_overview);

    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    QAction *quit = fileMenu->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    connect(helpMenu->addAction(tr("&About Sluice")), &QAction::triggered, this, &MainWindow::showAbout);

    auto addStatusField = [this](const QString &name) {
        auto *label = new QLabel(this);
        label->setObjectName(name);
        label->setContentsMargins(6, 0, 6, 0);
        statusBar()->addPermanentWidget(label);
        return label;
    };
    m_stateLabel = addStatusField(QStringLiteral("statusState"));
    m_versionLabel = addStatusField(QStringLiteral("statusVersion"));
    m_modeLabel = addStatusField(QStringLiteral("statusMode"));
    m_memoryLabel = addStatusField(QStringLiteral("statusMemory"));
    m_clientsLabel = addStatusField(QStringLiteral("statusClients"));
    m_stateLabel->setText(tr("Not connected"));
    resize(960, 600);
}

void MainWindow::setMonitor(ServerMonitor *monitor)
{
    m_monitor = monitor;
    setWindowTitle(tr("Sluice \u2014 %1").arg(monitor->targetLabel()));
    m_overview->setMonitor(monitor);
    connect(monitor, &ServerMonitor::healthChanged, this, &MainWindow::showHealth);
    connect(monitor, &ServerMonitor::statusChanged, this, &MainWindow::showStatus);
    showHealth(monitor->health(), monitor->problem());
}

void MainWindow::showStartupMessage(const QString &message, bool isError)
{
    m_overview->showMessage(message, isError);
    m_stateLabel->setText(isError ? tr("\u25cf Failed") : tr("\u25cf Starting"));
    m_stateLabel->setStyleSheet(isError ? QStringLiteral("color:#d93025;") : QStringLiteral("color:#4285f4;"));
}

void MainWindow::showHealth(ServerMonitor::Health health, const QString &problem)
{
    QString text;
    QString colour;
    switch (health) {
    case ServerMonitor::Health::Connecting:
        text = tr("Connecting");
        colour = QStringLiteral("#4285f4");
        break;
    case ServerMonitor::Health::Ready:
        text = tr("Connected");
        colour = QStringLiteral("#188038");
        break;
    case ServerMonitor::Health::Unreachable:
        text = tr("Unreachable");
        colour = QStringLiteral("#d93025");
        break;
    case ServerMonitor::Health::Failed:
        text = tr("Failed");
        colour = QStringLiteral("#d93025");
        break;
    }
    m_stateLabel->setText(QStringLiteral("\u25cf ") + text);
    m_stateLabel->setStyleSheet(QStringLiteral("color:%1;").arg(colour));
    m_stateLabel->setToolTip(problem);
}

void MainWindow::showStatus(const ServerStatus &status)
{
    m_versionLabel->setText(tr("Redis %1").arg(status.version));
    m_modeLabel->setText(status.mode);
    m_memoryLabel->setText(tr("Memory %1").arg(model::formatBytes(status.usedMemoryBytes)));
    m_clientsLabel->setText(tr("Clients %1").arg(status.connectedClients));
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Sluice"),
                       tr("<b>Sluice %1</b><p>A control room for distributed rate limiters that run "
                          "inside Redis.</p>")
                           .arg(QApplication::applicationVersion()));
}

} // namespace sluice::ui
