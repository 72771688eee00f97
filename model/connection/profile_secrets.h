// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/connection/secret_store.h"

#include <functional>
#include <optional>

namespace sluice::model {

// What the keychain holds for one profile. A profile that does not save its secrets is not looked up.
struct ProfileSecrets {
    std::optional<QString> password;      // nullopt: none stored (or not looked up)
    std::optional<QString> keyPassphrase; // read only when the profile has a client key
    QString keychainError;                // set when the keychain did not answer, and why
};

// Reads the profile's password and key passphrase; `done` is called once, on the context's thread.
void readProfileSecrets(SecretStore &store, const ConnectionProfile &profile, QObject *context,
                        std::function<void(const ProfileSecrets &)> done);

} // namespace sluice::model
