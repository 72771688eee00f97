// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayList>
#include <QHash>
#include <QMutex>
#include <QThread>

#include <atomic>

namespace sluice::test {

// A server that speaks RESP on a loopback port and answers from a script, on its own thread (so it
// answers while the test waits on a child process): for servers this machine cannot run, such as
// Redis 6 or Valkey. Each command gets the raw reply scripted for its name (upper case), or an
// "unknown command" error as Redis gives one.
class RespStubServer : public QThread {
public:
    explicit RespStubServer(QHash<QByteArray, QByteArray> replies);
    ~RespStubServer() override;

    // Starts listening on a free loopback port; false when it could not.
    bool open();
    quint16 port() const { return m_port; }
    // How many commands of this name it was sent.
    int received(const QByteArray &command) const;

    // The INFO reply of a server with these "field:value" lines, as a RESP bulk string.
    static QByteArray infoReply(const QByteArrayList &lines);

protected:
    void run() override;

private:
    const QHash<QByteArray, QByteArray> m_replies;
    std::atomic<quint16> m_port{0};
    std::atomic<bool> m_listening{false};
    std::atomic<bool> m_failed{false};
    mutable QMutex m_countMutex;
    QHash<QByteArray, int> m_counts;
};

} // namespace sluice::test
