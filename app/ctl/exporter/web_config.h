// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <QByteArray>
#include <QHash>
#include <QSslConfiguration>
#include <QString>

#include <optional>

namespace sluice::app {

// The exporter's TLS and basic authentication, read from a file in the form Prometheus's own exporters
// take (--web.config.file of the exporter toolkit), so one file serves both:
//
//   tls_server_config:
//     cert_file: server.crt            # PEM; relative paths are from the file's folder
//     key_file: server.key             # PEM, unencrypted, RSA or EC
//     client_auth_type: RequireAndVerifyClientCert   # optional; or NoClientCert (the default)
//     client_ca_file: ca.crt           # required with RequireAndVerifyClientCert
//     min_version: TLS12               # optional; TLS12 (the default) or TLS13
//   basic_auth_users:
//     prometheus: $2y$10$...           # bcrypt hashes (htpasswd -nB), never passwords
//
// Any other key is refused by name, as the toolkit does, so a misspelt setting never silently leaves the
// endpoint open.
struct WebConfig {
    std::optional<QSslConfiguration> tls;
    QHash<QString, QByteArray> bcryptByUser;

    static WebConfig load(const QString &path, std::optional<model::Failure> *failure);
};

} // namespace sluice::app
