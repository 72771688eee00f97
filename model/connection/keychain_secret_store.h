// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/secret_store.h"

namespace sluice::model {

// The OS keychain (Secret Service on Linux) through QtKeychain's short-lived jobs.
class KeychainSecretStore : public SecretStore {
public:
    explicit KeychainSecretStore(const QString &service = QStringLiteral("Sluice"));
    void write(const QString &key, const QString &secret, QObject *context, Callback done) override;
    void read(const QString &key, QObject *context, Callback done) override;
    void remove(const QString &key, QObject *context, Callback done) override;

private:
    QString m_service;
};

} // namespace sluice::model
