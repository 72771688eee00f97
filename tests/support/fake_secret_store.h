// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/secret_store.h"

#include <QHash>
#include <QTimer>

namespace sluice::test {

// An in-memory keychain for GUI tests (the real one has its own integration test). With
// `available` false it fails every call the way a missing Secret Service does. Answers come from
// the event loop, as the real one's do.
class FakeSecretStore : public model::SecretStore {
public:
    QHash<QString, QString> secrets;
    bool available = true;

    void write(const QString &key, const QString &secret, QObject *context, Callback done) override
    {
        answer(context, done, [this, key, secret](Result &) { secrets.insert(key, secret); });
    }
    void read(const QString &key, QObject *context, Callback done) override
    {
        answer(context, done, [this, key](Result &result) {
            result.notFound = !secrets.contains(key);
            result.secret = secrets.value(key);
        });
    }
    void remove(const QString &key, QObject *context, Callback done) override
    {
        answer(context, done, [this, key](Result &result) { result.notFound = !secrets.remove(key); });
    }

private:
    template <typename Act> void answer(QObject *context, Callback done, Act act)
    {
        QTimer::singleShot(0, context, [this, done, act] {
            Result result;
            if (available)
                act(result);
            else
                result.failure = model::Failure{
                    model::Failure::Kind::Unreachable,
                    QStringLiteral("The name org.freedesktop.secrets was not provided by any .service files")};
            done(result);
        });
    }
};

} // namespace sluice::test
