// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QThread>

#include <atomic>
#include <mutex>

namespace sluice::test {

// A TCP proxy in front of a Redis server, on its own thread (so it keeps forwarding while the test
// waits on a child process), that can misbehave on cue. A command is recognised by a marker in
// what the client sends, such as a line of a script's source:
// - holdUntil(marker, n): what a connection sends from the marker on is held until n connections
//   have sent it (or 10 s passed), then all of it goes at once: n clients read before any writes;
// - dropRepliesAfter(marker): the command reaches the server and runs, but from then on nothing
//   the server sends back reaches that client: its answer is lost.
class RedisProxy : public QThread {
public:
    explicit RedisProxy(quint16 serverPort);
    ~RedisProxy() override;

    // Starts listening on a free loopback port; false when it could not.
    bool open();
    quint16 port() const { return m_port; }

    void holdUntil(const QByteArray &marker, int connections);
    void dropRepliesAfter(const QByteArray &marker);
    void behave(); // forward everything again, from new commands on

    // How many connections reached the marker of the last holdUntil / dropRepliesAfter.
    int markedConnections() const { return m_marked; }

protected:
    void run() override;

private:
    friend class ProxyConnection;
    struct Rules {
        QByteArray holdMarker;
        int holdConnections = 0;
        QByteArray dropMarker;
    };
    Rules rules() const;

    const quint16 m_serverPort;
    std::atomic<quint16> m_port{0};
    std::atomic<int> m_marked{0};
    mutable std::mutex m_mutex;
    Rules m_rules;
    std::atomic<bool> m_listening{false};
    std::atomic<bool> m_failed{false};
};

} // namespace sluice::test
