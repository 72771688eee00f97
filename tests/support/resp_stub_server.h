// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayList>
#include <QHash>
#include <QMutex>
#include <QThread>
#include <QVector>

#include <atomic>
#include <deque>

class QTcpServer;

namespace sluice::test {

// A server that speaks RESP on a loopback port and answers from a script, on its own thread (so it
// answers while the test waits on a child process or spins its own loop). It plays servers this
// machine cannot run (Redis 6, Valkey) and the moments a real one cannot be made to have on cue:
// TRYAGAIN, LOADING, a READONLY from a demoted primary, a MOVED loop, a reply that never comes.
//
// Each command gets the reply queued for its name (upper case) if any, else the standing reply for
// its name, else an "unknown command" error as Redis gives one. Every command is recorded with the
// time it arrived and the connection it came on.
class RespStubServer : public QThread {
public:
    // Not RESP: what the server does instead of answering.
    static const QByteArray noAnswer;        // reads the command and says nothing, the connection stays
    static const QByteArray closeConnection; // reads the command and closes the connection

    struct Received {
        QByteArrayList args;
        qint64 atMs = 0;    // on nowMs()'s clock
        int connection = 0; // 1 for the first connection accepted, and so on
    };

    explicit RespStubServer(QHash<QByteArray, QByteArray> replies = redis7());
    ~RespStubServer() override;

    // Starts listening on a free loopback port; false when it could not.
    bool open();
    quint16 port() const { return m_port; }
    QString address() const;

    // The standing reply to a command, from now on.
    void setReply(const QByteArray &command, const QByteArray &reply);
    // The next `times` commands of this name get `reply`, before any reply queued after it and
    // before the standing one.
    void queue(const QByteArray &command, const QByteArray &reply, int times = 1);
    // Closes every open connection without a word (a restart, as its clients see one).
    void dropConnections();
    // Stops accepting connections (refused from now on) and drops those open, or accepts again on
    // the same port.
    void stopListening();
    bool listenAgain();

    // How many commands of this name it was sent.
    int received(const QByteArray &command) const;
    // Those commands (or every command), in the order they arrived.
    QVector<Received> receivedCommands(const QByteArray &command = {}) const;
    // When each connection was accepted, on nowMs()'s clock.
    QVector<qint64> acceptedAt() const;

    // A monotonic clock in ms shared with the test thread.
    static qint64 nowMs();

    // The standing replies of a Redis 7 standalone server: the handshake, INFO, no cluster.
    static QHash<QByteArray, QByteArray> redis7();
    // The INFO reply of a server with these "field:value" lines, as a RESP bulk string.
    static QByteArray infoReply(const QByteArrayList &lines);
    static QByteArray error(const QByteArray &text) { return '-' + text + "\r\n"; }
    static QByteArray status(const QByteArray &text) { return '+' + text + "\r\n"; }
    static QByteArray integer(qint64 value) { return ':' + QByteArray::number(value) + "\r\n"; }
    static QByteArray bulk(const QByteArray &text);
    // An array of replies already encoded.
    static QByteArray array(const QByteArrayList &encodedItems);
    // SENTINEL GET-MASTER-ADDR-BY-NAME's answer naming this server.
    QByteArray primaryAddressReply() const;
    // CLUSTER SHARDS naming these servers as primaries, each serving one range of slots.
    struct ShardRange {
        const RespStubServer *server;
        int firstSlot;
        int lastSlot;
    };
    static QByteArray clusterShards(const QVector<ShardRange> &shards);

protected:
    void run() override;

private:
    QByteArray replyTo(const QByteArray &name);
    void onCommand(const QByteArrayList &args, int connection);
    // Runs `work` on the server's thread and waits for it.
    void onServerThread(const std::function<void()> &work);

    std::atomic<quint16> m_port{0};
    std::atomic<bool> m_listening{false};
    std::atomic<bool> m_failed{false};
    QObject *m_home = nullptr; // lives on the server's thread while it runs
    QTcpServer *m_server = nullptr;

    mutable QMutex m_mutex; // guards what follows
    QHash<QByteArray, QByteArray> m_replies;
    QHash<QByteArray, std::deque<QByteArray>> m_queued;
    QVector<Received> m_received;
    QVector<qint64> m_acceptedAt;
};

} // namespace sluice::test
