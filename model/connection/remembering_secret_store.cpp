// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/remembering_secret_store.h"

namespace sluice::model {

namespace {

bool unreachable(const SecretStore::Result &result)
{
    return result.failure && result.failure->kind == Failure::Kind::Unreachable;
}

} // namespace

RememberingSecretStore::RememberingSecretStore(SecretStore *inner)
    : m_inner(inner)
{
}

void RememberingSecretStore::write(const QString &key, const QString &secret, QObject *context, Callback done)
{
    m_inner->write(key, secret, context, [this, key, secret, done](const Result &result) {
        if (unreachable(result))
            m_remembered.insert(key, secret);
        else if (result.ok())
            m_remembered.remove(key);
        done(result); // the caller still hears that the keychain did not take it
    });
}

void RememberingSecretStore::read(const QString &key, QObject *context, Callback done)
{
    m_inner->read(key, context, [this, key, done](const Result &result) {
        const auto found = m_remembered.constFind(key);
        if (!unreachable(result) || found == m_remembered.constEnd())
            return done(result);
        Result remembered;
        remembered.secret = *found;
        done(remembered);
    });
}

void RememberingSecretStore::remove(const QString &key, QObject *context, Callback done)
{
    m_remembered.remove(key);
    m_inner->remove(key, context, std::move(done));
}

} // namespace sluice::model
