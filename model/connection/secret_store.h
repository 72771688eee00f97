#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace sluice::model {

// Where passwords live: the OS keychain in production, a fake in unit tests. Every call is
// asynchronous and answers once, on the context object's thread, unless the context is gone.
class SecretStore {
public:
    struct Result {
        bool ok = false;
        bool notFound = false;   // reading a key that holds nothing
        QString secret;          // for reads
        QString error;           // why it failed; never contains the secret
    };
    using Callback = std::function<void(const Result &)>;

    virtual ~SecretStore() = default;
    virtual void write(const QString &key, const QString &secret, QObject *context, Callback done) = 0;
    virtual void read(const QString &key, QObject *context, Callback done) = 0;
    virtual void remove(const QString &key, QObject *context, Callback done) = 0;
};

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
