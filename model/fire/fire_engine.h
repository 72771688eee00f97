// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/fire/fire_report.h"
#include "redis/connection_options.h"

#include <QObject>

class QThread;

namespace sluice::model {

class FireRun;

// Test-fire: sends a plan's calls from a thread of its own, over connections of its own (so neither
// the dashboard's connection nor the GUI thread carries the load), and keeps the report the panel
// and sluicectl show. Open-loop shapes send each call when it is due, whatever the answers; the
// report compares every target's answers with its reference model fed the same calls at the times
// they were sent (on the server's clock, read once at the start).
class FireEngine : public QObject {
    Q_OBJECT
public:
    explicit FireEngine(QObject *parent = nullptr);
    ~FireEngine() override; // abandons a run in progress

    // Starts a run; returns why not when it cannot (the plan's problems, a run already going, a
    // read-only connection). `ns` is the connection's namespace (keys, the test-fire key space).
    std::optional<Failure> start(FirePlan plan, const redis::ConnectionOptions &options, const QString &ns,
                                 bool readOnly);
    // No more calls; the answers still in flight are awaited, then finished() follows.
    void stop();
    bool isRunning() const { return m_thread != nullptr; }
    const FireReport &report() const { return m_report; }
    // The run's key space: "<ns>-fire:<run>:" (empty for real keys).
    QByteArray keyPrefix() const { return m_keyPrefix; }
    // The run's first call to its first target, as sent (to replay it with redis-benchmark).
    QByteArrayList sampleCommand() const { return m_sampleCommand; }

Q_SIGNALS:
    void updated();  // report() has news (about ten times a second)
    void finished(); // the run is over; report().failure() says why when it failed

private:
    friend class FireRun;
    void receiveFromRun(const FireUpdate &update);

    FireReport m_report;
    QThread *m_thread = nullptr;
    FireRun *m_run = nullptr; // lives in m_thread
    QByteArray m_keyPrefix;
    QByteArrayList m_sampleCommand;
};

} // namespace sluice::model
