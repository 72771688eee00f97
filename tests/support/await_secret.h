// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/secret_store.h"
#include "support/sync_command.h"

namespace sluice::test {

// Runs one SecretStore call, `start(context, done)`, and waits for its answer (tests only), or
// gives up after 10 s.
template <typename Start> model::SecretStore::Result awaitSecret(Start start)
{
    model::SecretStore::Result noAnswer;
    noAnswer.failure
        = model::Failure{model::Failure::Kind::TimedOut, QStringLiteral("no answer from the keychain within 10 s")};
    return awaitCallback<model::SecretStore::Result>(start, noAnswer);
}

} // namespace sluice::test
