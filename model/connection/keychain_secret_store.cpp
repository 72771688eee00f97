// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/keychain_secret_store.h"

#include <QPointer>
#include <qt6keychain/keychain.h>

namespace sluice::model {

namespace {

// Runs one job and reports to the context; the job deletes itself when it finishes.
void runJob(QKeychain::Job *job, QObject *context, SecretStore::Callback done)
{
    job->setAutoDelete(true);
    // Never fall back to a plain-text settings file when no keychain answers.
    job->setInsecureFallback(false);
    QObject::connect(job, &QKeychain::Job::finished, context, [done = std::move(done)](QKeychain::Job *finished) {
        SecretStore::Result result;
        const QKeychain::Error error = finished->error();
        result.notFound = error == QKeychain::EntryNotFound;
        if (error == QKeychain::AccessDenied || error == QKeychain::AccessDeniedByUser)
            result.failure = Failure{Failure::Kind::Refused, finished->errorString()};
        else if (error != QKeychain::NoError && !result.notFound)
            result.failure = Failure{Failure::Kind::Unreachable, finished->errorString()};
        if (auto *reader = qobject_cast<QKeychain::ReadPasswordJob *>(finished); reader && result.ok())
            result.secret = reader->textData();
        done(result);
    });
    job->start();
}

} // namespace

KeychainSecretStore::KeychainSecretStore(const QString &service)
    : m_service(service)
{
}

void KeychainSecretStore::write(const QString &key, const QString &secret, QObject *context, Callback done)
{
    auto *job = new QKeychain::WritePasswordJob(m_service);
    job->setKey(key);
    job->setTextData(secret);
    runJob(job, context, std::move(done));
}

void KeychainSecretStore::read(const QString &key, QObject *context, Callback done)
{
    auto *job = new QKeychain::ReadPasswordJob(m_service);
    job->setKey(key);
    runJob(job, context, std::move(done));
}

void KeychainSecretStore::remove(const QString &key, QObject *context, Callback done)
{
    auto *job = new QKeychain::DeletePasswordJob(m_service);
    job->setKey(key);
    runJob(job, context, std::move(done));
}

} // namespace sluice::model
