#pragma once

#include "model/server_monitor.h"

#include <QMainWindow>

class QLabel;

namespace sluice::ui {

class ServerOverview;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    // The window works before it has a server (the sandbox may still be starting).
    void setMonitor(model::ServerMonitor *monitor);
    void showStartupMessage(const QString &message, bool isError);

    ServerOverview *serverOverview() const { return m_overview; }

private:
    void showHealth(model::ServerMonitor::Health health, const QString &problem);
    void showStatus(const model::ServerStatus &status);
    void showAbout();

    ServerOverview *m_overview = nullptr;
    model::ServerMonitor *m_monitor = nullptr;
    QLabel *m_stateLabel = nullptr;
    QLabel *m_versionLabel = nullptr;
    QLabel *m_modeLabel = nullptr;
    QLabel *m_memoryLabel = nullptr;
    QLabel *m_clientsLabel = nullptr;
};

} // namespace sluice::ui
