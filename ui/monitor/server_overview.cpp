// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/monitor/server_overview.h"

#include "model/format/units.h"
#include "model/monitor/eviction_risk.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/state_palette.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace sluice::ui {

using model::ServerMonitor;
using model::ServerStatus;

namespace {

QString placeholder()
{
    return QStringLiteral("\u2014");
}

} // namespace

ServerOverview::ServerOverview(QWidget *parent)
    : QWidget(parent)
{
    m_banner = new Banner(Tone::Info, QStringLiteral("connectionBanner"), this);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setContentsMargins(10, 8, 10, 8);

    auto *serverBox = new QGroupBox(tr("Server"), this);
    auto *serverForm = new QFormLayout(serverBox);
    m_address = addRow(serverForm, tr("Address"), QStringLiteral("overviewAddress"));
    m_version = addRow(serverForm, tr("Version"), QStringLiteral("overviewVersion"));
    m_mode = addRow(serverForm, tr("Mode"), QStringLiteral("overviewMode"));
    m_role = addRow(serverForm, tr("Role"), QStringLiteral("overviewRole"));
    m_uptime = addRow(serverForm, tr("Uptime"), QStringLiteral("overviewUptime"));

    auto *loadBox = new QGroupBox(tr("Load"), this);
    auto *loadForm = new QFormLayout(loadBox);
    m_clients = addRow(loadForm, tr("Connected clients"), QStringLiteral("overviewClients"));
    m_ops = addRow(loadForm, tr("Commands per second"), QStringLiteral("overviewOps"));
    m_memory = addRow(loadForm, tr("Memory used (peak)"), QStringLiteral("overviewMemory"));
    m_maxMemory = addRow(loadForm, tr("Memory limit"), QStringLiteral("overviewMaxMemory"));
    m_eviction = addRow(loadForm, tr("When memory runs out"), QStringLiteral("overviewEviction"));
    m_keys = addRow(loadForm, tr("Keys"), QStringLiteral("overviewKeys"));
    m_latency = addRow(loadForm, tr("Latency spikes"), QStringLiteral("overviewLatency"));
    m_slowest = addRow(loadForm, tr("Slowest command"), QStringLiteral("overviewSlowest"));
    for (QLabel *row : {m_latency, m_slowest}) {
        row->setTextFormat(Qt::PlainText);
        row->setWordWrap(true);
    }

    // Under the three boxes, the width of all of them: what the server may drop is a paragraph.
    m_evictionWarning = new QLabel(this);
    m_evictionWarning->setObjectName(QStringLiteral("evictionWarning"));
    m_evictionWarning->setWordWrap(true);
    m_evictionWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_evictionWarning->setStyleSheet(textStyle(Tone::Warning));
    m_evictionWarning->hide();

    auto *persistenceBox = new QGroupBox(tr("Persistence"), this);
    auto *persistenceForm = new QFormLayout(persistenceBox);
    m_rdb = addRow(persistenceForm, tr("RDB snapshots"), QStringLiteral("overviewRdb"));
    m_aof = addRow(persistenceForm, tr("Append-only file"), QStringLiteral("overviewAof"));
    m_persistenceWarning = new QLabel(
        tr("Nothing is persisted: a restart of this server loses its data and its function library."), persistenceBox);
    m_persistenceWarning->setObjectName(QStringLiteral("persistenceWarning"));
    m_persistenceWarning->setWordWrap(true);
    m_persistenceWarning->setStyleSheet(textStyle(Tone::Warning));
    m_persistenceWarning->hide();
    persistenceForm->addRow(m_persistenceWarning);

    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(16);
    grid->setVerticalSpacing(16);
    grid->addWidget(serverBox, 0, 0);
    grid->addWidget(loadBox, 0, 1);
    grid->addWidget(persistenceBox, 0, 2);
    grid->addWidget(m_evictionWarning, 1, 0, 1, 3);
    for (int column = 0; column < 3; ++column)
        grid->setColumnStretch(column, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 16, 16, 16);
    layout->setSpacing(16);
    layout->addWidget(m_banner);
    layout->addLayout(grid);
    layout->addStretch(1);
    m_layout = layout;

    showMessage(tr("Not connected."), false);
}

void ServerOverview::setLiveSection(QWidget *section)
{
    delete m_layout->takeAt(m_layout->count() - 1); // the stretch
    m_layout->addWidget(section, 1);
}

QLabel *ServerOverview::addRow(QFormLayout *form, const QString &label, const QString &name)
{
    auto *value = new QLabel(placeholder(), this);
    value->setObjectName(name);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(label + QLatin1Char(':'), value);
    return value;
}

void ServerOverview::followDiagnostics(model::ServerDiagnosticsPoller *poller)
{
    m_diagnostics = poller;
    connect(poller, &model::ServerDiagnosticsPoller::updated, this, &ServerOverview::showDiagnostics);
    if (isVisible())
        poller->start();
}

void ServerOverview::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_diagnostics)
        m_diagnostics->start();
}

void ServerOverview::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (m_diagnostics)
        m_diagnostics->stop(); // three small reads per primary, only while someone looks
}

QString ServerOverview::latencyText() const
{
    return m_latency->text();
}

QString ServerOverview::slowestText() const
{
    return m_slowest->text();
}

// A style sheet or a new text lays the page out again (tens of ms with the live table under it): only what
// changed is set.
void ServerOverview::showRow(QLabel *row, const QString &text, Tone tone, const QString &details)
{
    if (row->text() != text)
        row->setText(text);
    if (const QString style = textStyle(tone); row->styleSheet() != style)
        row->setStyleSheet(style);
    if (row->toolTip() != details)
        row->setToolTip(details);
}

// Each row says what it knows, or why it knows nothing: figures come from the round just read, never from
// an earlier one.
void ServerOverview::showDiagnostics(const model::ServerDiagnostics &diagnostics)
{
    const std::optional<qint64> threshold = diagnostics.latencyThresholdMs;
    QString latency;
    QStringList latencyDetails;
    Tone latencyTone = Tone::Muted;
    if (!diagnostics.latency.isEmpty()) {
        const model::LatencyEvent &newest = diagnostics.latency.first();
        latency = tr("%1 %2 ms at %3 (the largest %4 ms)")
                      .arg(newest.event)
                      .arg(newest.latestMs)
                      .arg(model::formatClock(newest.atMs))
                      .arg(newest.maxMs);
        if (diagnostics.latency.size() > 1)
            latency += tr(", %n more event(s)", nullptr, int(diagnostics.latency.size() - 1));
        for (const model::LatencyEvent &event : diagnostics.latency)
            latencyDetails << tr("%1 on %2: %3 ms at %4, the largest %5 ms")
                                  .arg(event.event, event.node)
                                  .arg(event.latestMs)
                                  .arg(model::formatClock(event.atMs))
                                  .arg(event.maxMs);
        latencyTone = Tone::Warning;
    } else if (threshold && *threshold == 0) {
        latency = tr("off: latency-monitor-threshold is 0");
        latencyDetails << tr("Redis records no latency spikes while latency-monitor-threshold is 0, its default. "
                             "CONFIG SET latency-monitor-threshold 100 records those over 100 ms.");
    } else if (threshold) {
        latency = tr("none over %1 ms").arg(*threshold);
        latencyTone = Tone::Ok;
    } else if (diagnostics.latencyProblem.isEmpty()) {
        latency = tr("none recorded, or off");
        latencyDetails << tr("This user may not read latency-monitor-threshold (CONFIG GET), so an empty LATENCY "
                             "LATEST may also mean the monitor is off.");
    }
    if (!diagnostics.latencyProblem.isEmpty()) {
        latency += (latency.isEmpty() ? QString() : QStringLiteral("; ")) + diagnostics.latencyProblem;
        latencyTone = Tone::Warning;
    }
    showRow(m_latency, latency, latencyTone, latencyDetails.join(QLatin1Char('\n')));

    QString slowest;
    QStringList slowestDetails;
    if (!diagnostics.slowest.isEmpty()) {
        const model::SlowCommand &top = diagnostics.slowest.first();
        const QString took
            = top.durationUs < 1000 ? tr("%1 \u00b5s").arg(top.durationUs) : model::formatWait(top.durationUs / 1000);
        slowest = tr("%1, %2 at %3").arg(top.command, took, model::formatClock(top.atMs));
        for (const model::SlowCommand &command : diagnostics.slowest.mid(0, 10))
            slowestDetails << tr("%1 on %2: %3 \u00b5s at %4")
                                  .arg(command.command, command.node)
                                  .arg(command.durationUs)
                                  .arg(model::formatClock(command.atMs));
    } else if (diagnostics.slowlogProblem.isEmpty()) {
        slowest = tr("none in the slowlog");
    }
    if (!diagnostics.slowlogProblem.isEmpty())
        slowest += (slowest.isEmpty() ? QString() : QStringLiteral("; ")) + diagnostics.slowlogProblem;
    showRow(m_slowest, slowest, diagnostics.slowlogProblem.isEmpty() ? Tone::Muted : Tone::Warning,
            slowestDetails.isEmpty() ? QString()
                                     : tr("The slowest of each primary's last %1 entries, without their arguments:\n")
                                           .arg(model::ServerDiagnosticsPoller::kSlowlogEntries)
                    + slowestDetails.join(QLatin1Char('\n')));
}

void ServerOverview::setMonitor(ServerMonitor *monitor)
{
    if (m_monitor)
        disconnect(m_monitor, nullptr, this, nullptr);
    m_monitor = monitor;
    m_evictedAtFirstLook = -1;
    m_address->setText(monitor->targetLabel());
    connect(monitor, &ServerMonitor::healthChanged, this, &ServerOverview::showHealth);
    connect(monitor, &ServerMonitor::statusChanged, this, &ServerOverview::showStatus);
    showHealth(monitor->health(), monitor->problem());
    if (monitor->hasStatus())
        showStatus(monitor->status());
}

void ServerOverview::showMessage(const QString &message, bool isError)
{
    setBanner(message, isError ? Tone::Error : Tone::Info);
}

QString ServerOverview::bannerText() const
{
    return m_banner->text();
}

void ServerOverview::setBanner(const QString &text, Tone tone)
{
    m_banner->setText(text);
    m_banner->setTone(tone);
    m_banner->show();
}

void ServerOverview::showHealth(ServerMonitor::Health health, const QString &problem)
{
    const QString target = m_monitor->targetLabel();
    switch (health) {
    case ServerMonitor::Health::Connecting: setBanner(tr("Connecting to %1\u2026").arg(target), Tone::Info); break;
    case ServerMonitor::Health::Ready:
        if (problem.isEmpty()) {
            setBanner(tr("Connected to %1.").arg(target), Tone::Ok);
            m_banner->hide(); // all is well: the status bar says so, the Address row says where
        } else
            setBanner(tr("Connected to %1, but %2").arg(target, problem), Tone::Info);
        break;
    case ServerMonitor::Health::Unreachable:
        setBanner((m_monitor->hasStatus() ? tr("Cannot reach %1: %2. Retrying in the background; the figures "
                                               "below are the last ones received.")
                                          : tr("Cannot reach %1: %2. Retrying in the background."))
                      .arg(target, problem.isEmpty() ? tr("connection lost") : problem),
                  Tone::Error);
        break;
    case ServerMonitor::Health::Failed: setBanner(tr("Gave up on %1: %2").arg(target, problem), Tone::Error); break;
    }
}

void ServerOverview::showStatus(const ServerStatus &status)
{
    const QLocale locale;
    m_version->setText(status.server.known() ? status.server.displayName() : placeholder());
    m_mode->setText(status.server.mode);
    m_role->setText(status.role == QLatin1String("master") ? tr("primary")
                        : status.role == QLatin1String("slave")
                        ? tr("replica")
                        : (status.role.isEmpty() ? placeholder() : status.role));
    m_uptime->setText(model::formatDuration(status.uptimeSeconds));
    m_clients->setText(locale.toString(status.connectedClients));
    m_ops->setText(locale.toString(status.opsPerSecond));
    m_memory->setText(
        tr("%1 (%2)").arg(model::formatBytes(status.usedMemoryBytes), model::formatBytes(status.peakMemoryBytes)));
    m_maxMemory->setText(status.maxMemoryBytes > 0 ? model::formatBytes(status.maxMemoryBytes) : tr("none"));
    m_keys->setText(locale.toString(status.keys));
    m_rdb->setText(!status.rdbKnown ? tr("unknown (CONFIG not permitted)") : status.rdbEnabled ? tr("on") : tr("off"));
    m_aof->setText(status.aofEnabled ? tr("on") : tr("off"));
    m_persistenceWarning->setVisible(status.rdbKnown && !status.rdbEnabled && !status.aofEnabled);
    showEviction(status);
}

void ServerOverview::showEviction(const ServerStatus &status)
{
    m_eviction->setText(status.maxmemoryPolicy.isEmpty() ? placeholder()
                            : model::evictionRiskOf(status.maxmemoryPolicy) == model::EvictionRisk::None
                            ? tr("%1 (drops nothing)").arg(status.maxmemoryPolicy)
                            : status.maxmemoryPolicy);
    // evicted_keys counts from the server's start: what rose since this dashboard first looked (again
    // from a restart, when it went back).
    if (m_evictedAtFirstLook < 0 || status.evictedKeys < m_evictedAtFirstLook) {
        m_evictedAtFirstLook = status.evictedKeys;
        m_firstLook = QDateTime::currentDateTime();
    }
    QStringList warnings;
    if (const QString risk = model::evictionWarning(status.maxmemoryPolicy); !risk.isEmpty())
        warnings << tr("This server may drop keys: %1.").arg(risk);
    const QString evicted
        = model::evictedWarning(status.evictedKeys - m_evictedAtFirstLook,
                                tr("since %1, when this dashboard first looked")
                                    .arg(QLocale().toString(m_firstLook.time(), QLocale::ShortFormat)));
    if (!evicted.isEmpty())
        warnings << evicted[0].toUpper() + evicted.mid(1) + QLatin1Char('.');
    m_evictionWarning->setText(warnings.join(QLatin1Char('\n')));
    m_evictionWarning->setVisible(!warnings.isEmpty());
}

} // namespace sluice::ui
