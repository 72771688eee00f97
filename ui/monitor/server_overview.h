// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/server_diagnostics.h"
#include "model/monitor/server_monitor.h"
#include "ui/widgets/state_palette.h"

#include <QDateTime>
#include <QPointer>
#include <QWidget>

class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace sluice::ui {

class Banner;

// The server page: where Sluice is connected, whether it can reach the server, and what the server
// reports about itself (version, mode, load, memory, persistence).
class ServerOverview : public QWidget {
    Q_OBJECT
public:
    explicit ServerOverview(QWidget *parent = nullptr);

    void setMonitor(model::ServerMonitor *monitor);
    // Shown while there is no monitor yet (sandbox starting) or instead of one (sandbox failed).
    void showMessage(const QString &message, bool isError);

    QString bannerText() const;
    // The live part below the server's facts (it takes the room they leave).
    void setLiveSection(QWidget *section);
    // Redis's latency spikes and slowest commands, read while the Overview is shown; the view owns it.
    void followDiagnostics(model::ServerDiagnosticsPoller *poller);
    QString latencyText() const;
    QString slowestText() const;

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void showHealth(model::ServerMonitor::Health health, const QString &problem);
    void showStatus(const model::ServerStatus &status);
    void showEviction(const model::ServerStatus &status);
    void showDiagnostics(const model::ServerDiagnostics &diagnostics);
    void showRow(QLabel *row, const QString &text, Tone tone, const QString &details);
    void setBanner(const QString &text, Tone tone);
    QLabel *addRow(QFormLayout *form, const QString &label, const QString &name);

    QPointer<model::ServerMonitor> m_monitor; // may go with the session that owned it
    QVBoxLayout *m_layout = nullptr;
    Banner *m_banner = nullptr;
    QLabel *m_address = nullptr;
    QLabel *m_version = nullptr;
    QLabel *m_mode = nullptr;
    QLabel *m_role = nullptr;
    QLabel *m_uptime = nullptr;
    QLabel *m_clients = nullptr;
    QLabel *m_ops = nullptr;
    QLabel *m_memory = nullptr;
    QLabel *m_maxMemory = nullptr;
    QLabel *m_keys = nullptr;
    QLabel *m_latency = nullptr;
    QLabel *m_slowest = nullptr;
    model::ServerDiagnosticsPoller *m_diagnostics = nullptr;
    QLabel *m_rdb = nullptr;
    QLabel *m_aof = nullptr;
    QLabel *m_persistenceWarning = nullptr;
    QLabel *m_eviction = nullptr;
    QLabel *m_evictionWarning = nullptr;
    // evicted_keys when this monitor's first status came (or the server restarted), and when.
    qint64 m_evictedAtFirstLook = -1;
    QDateTime m_firstLook;
};

} // namespace sluice::ui
