// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/secret_store.h"

#include <QHash>

namespace sluice::model {

// A secret store in front of another (the keychain) that keeps, for this run only and in this process's
// memory only, what could not be written there because it did not answer, and answers reads of those
// keys from memory while it still does not. Without a keychain the operator is then asked for a
// profile's secret once per run, not at every Test and Connect. A keychain that answers again is used
// again (and a write that reaches it clears the copy).
class RememberingSecretStore : public SecretStore {
public:
    explicit RememberingSecretStore(SecretStore *inner);

    void write(const QString &key, const QString &secret, QObject *context, Callback done) override;
    void read(const QString &key, QObject *context, Callback done) override;
    void remove(const QString &key, QObject *context, Callback done) override;

private:
    SecretStore *m_inner;
    QHash<QString, QString> m_remembered;
};

} // namespace sluice::model
