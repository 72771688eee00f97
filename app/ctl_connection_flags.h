#pragma once

#include "redis/connection_options.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace sluice::app {

// sluicectl's connection flags, named as redis-cli names them: -u URL, -h host, -p port, -s socket,
// -n db, --user, -a/--pass, --tls, --cacert, --cert, --key, --sni, --insecure. Flags refine the URL
// (or the default redis://127.0.0.1:6379); with no password given, REDISCLI_AUTH supplies one.
class CtlConnectionFlags {
public:
    CtlConnectionFlags();
    void addTo(QCommandLineParser &parser) const;

    // The options the flags describe; false and *error naming the flag on bad input.
    // *warning is set when a password came on the command line (other users may see it).
    bool read(const QCommandLineParser &parser, redis::ConnectionOptions *options, QString *error, QString *warning) const;

private:
    QCommandLineOption m_url, m_host, m_port, m_socket, m_database, m_user, m_password, m_tls, m_caFile, m_certFile,
        m_keyFile, m_serverName, m_insecure;
};

} // namespace sluice::app
