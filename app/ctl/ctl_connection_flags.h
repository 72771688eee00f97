// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace sluice::app {

// sluicectl's connection flags, named as redis-cli names them: -u URL, -h host, -p port, -s socket,
// -n db, --user, -a/--pass, --tls, --cacert, --cert, --key, --sni, --insecure. Flags refine the URL
// (or the options they are given: a profile's, or redis://127.0.0.1:6379); with no password given,
// REDISCLI_AUTH supplies one, and SLUICE_TLS_KEY_PASSPHRASE an encrypted client key's passphrase.
class CtlConnectionFlags {
public:
    CtlConnectionFlags();
    QList<QCommandLineOption> options() const;
    bool givesUrl(const QCommandLineParser &parser) const { return parser.isSet(m_url); }
    bool givesPassword(const QCommandLineParser &parser) const { return parser.isSet(m_password); }

    // Refines *options with what the flags say; false and *error naming the flag on bad input.
    // *warning is set when a password came on the command line (other users may see it).
    bool read(const QCommandLineParser &parser, redis::ConnectionOptions *options, QString *error,
              QString *warning) const;

private:
    QCommandLineOption m_url, m_host, m_port, m_socket, m_database, m_user, m_password, m_tls, m_caFile, m_certFile,
        m_keyFile, m_serverName, m_insecure;
};

} // namespace sluice::app
