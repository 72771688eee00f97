#pragma once

#include "model/secret_store.h"

#include <QEventLoop>
#include <QTimer>

namespace sluice::test {

// Runs one SecretStore call and spins until it answers (tests only), or gives up after 10 s.
// `start(context, done)` makes the call.
template <typename Start>
model::SecretStore::Result awaitSecret(Start start)
{
    QEventLoop loop;
    model::SecretStore::Result result;
    result.error = QStringLiteral("no answer from the keychain within 10 s");
    start(&loop, [&](const model::SecretStore::Result &answer) {
        result = answer;
        loop.quit();
    });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    return result;
}

} // namespace sluice::test
