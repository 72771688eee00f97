// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <QObject>
#include <QString>

#include <functional>

namespace sluice::model {

// Where passwords live: the OS keychain in production, a fake in unit tests. Every call is
// asynchronous and answers once, on the context object's thread, unless the context is gone.
class SecretStore {
public:
    struct Result {
        std::optional<Failure> failure; // why it failed (Unreachable: no keychain); never holds the secret
        bool notFound = false;          // reading a key that holds nothing (not a failure)
        QString secret;                 // for reads
        bool ok() const { return !failure && !notFound; }
    };
    using Callback = std::function<void(const Result &)>;

    virtual ~SecretStore() = default;
    virtual void write(const QString &key, const QString &secret, QObject *context, Callback done) = 0;
    virtual void read(const QString &key, QObject *context, Callback done) = 0;
    virtual void remove(const QString &key, QObject *context, Callback done) = 0;
};

} // namespace sluice::model
