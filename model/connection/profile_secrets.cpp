// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/profile_secrets.h"

#include <memory>

namespace sluice::model {

void readProfileSecrets(SecretStore &store, const ConnectionProfile &profile, QObject *context,
                        std::function<void(const ProfileSecrets &)> done)
{
    QStringList keys;
    if (profile.savePassword) {
        if (!profile.noPassword)
            keys << profile.passwordKey();
        if (!profile.options.keyFile.isEmpty())
            keys << profile.keyPassphraseKey();
    }
    auto secrets = std::make_shared<ProfileSecrets>();
    if (keys.isEmpty()) {
        done(*secrets);
        return;
    }
    auto outstanding = std::make_shared<int>(static_cast<int>(keys.size()));
    for (const QString &key : keys) {
        const bool isPassword = key == profile.passwordKey();
        store.read(key, context, [secrets, outstanding, done, isPassword](const SecretStore::Result &result) {
            if (result.ok())
                (isPassword ? secrets->password : secrets->keyPassphrase) = result.secret;
            else if (!result.notFound)
                secrets->keychainError = result.failure->message;
            if (--*outstanding == 0)
                done(*secrets);
        });
    }
}

} // namespace sluice::model
