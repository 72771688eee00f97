// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>

namespace sluice::app {

// A private redis-server for the embedded default: a free loopback port, a temporary folder, no
// persistence unless a data folder is given. The server dies with this process, even on SIGKILL
// (the kernel's parent-death signal), and a later start sweeps folders such deaths left behind.
class SandboxRedis : public QObject {
    Q_OBJECT
public:
    explicit SandboxRedis(QObject *parent = nullptr);
    ~SandboxRedis() override;

    // Keep data in this folder across runs (RDB and AOF on) instead of a throwaway one.
    void setDataDirectory(const QString &path) { m_dataDirectory = path; }

    void start();
    void stop();
    quint16 port() const { return m_port; }
    QString directory() const;

Q_SIGNALS:
    void ready(quint16 port);
    void failed(const QString &reason);

private:
    void launch();
    void onOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    static void sweepAbandonedFolders();

    QString m_dataDirectory;
    std::unique_ptr<QTemporaryDir> m_tempDir;
    QProcess *m_process = nullptr;
    quint16 m_port = 0;
    bool m_ready = false;
    int m_attempts = 0;
    QByteArray m_log;
};

} // namespace sluice::app
