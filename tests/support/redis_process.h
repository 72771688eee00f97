// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"

#include <QProcess>
#include <QTemporaryDir>

namespace sluice::test {

// A private redis-server for one test that must do something drastic to it (freeze it with
// SIGSTOP, kill and restart it) without disturbing the shared services. It is killed with this
// object, and with this process even when that is killed with SIGKILL (Linux).
class RedisProcess {
public:
    // How long a client made from options() waits: patiently by default, so a busy machine only
    // slows a test down; quickly for tests that freeze or kill the server and wait for the timeout.
    enum class Patience { Patient, Quick };

    explicit RedisProcess(Patience patience = Patience::Patient);
    ~RedisProcess();

    // Server arguments besides the port, address and persistence (cluster settings, say); before start().
    void setExtraArguments(const QStringList &arguments) { m_extraArguments = arguments; }
    bool start();   // on a free loopback port; waits until it accepts connections
    bool restart(); // kill -9, then start again on the same port
    void freeze();  // SIGSTOP: the port still accepts TCP connections, nothing answers
    void thaw();    // SIGCONT
    void kill();
    // Empty while the server runs; else how it ended, for a message ("... was killed by signal 9").
    QString exitReason() const;
    // Gives the event loop's notice of the server's end up to `ms` to arrive; true once it has ended.
    bool waitForExit(int ms);
    // Benchmarks: the server on the last CPU and the calling process on the others, so the load
    // and the server do not take turns on one core. False, and nothing changed, on a single CPU.
    bool pinApart();

    quint16 port() const { return m_port; }
    redis::ConnectionOptions options() const;
    QString errorString() const { return m_error; }

private:
    bool launch();

    QTemporaryDir m_dir;
    QProcess m_process;
    QStringList m_extraArguments;
    quint16 m_port = 0;
    qint64 m_pid = 0; // the last server's, still known after it ended
    Patience m_patience;
    QString m_error;
};

} // namespace sluice::test
