// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/connection/secret_store.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

class QWidget;

namespace sluice::ui {

// Finds the secrets a profile connects with: secrets typed in a form win; else the keychain's;
// else the operator is asked, with the reason (the profile does not save them, or no keychain
// answered). The prompt is a window-modal dialog opened without a nested event loop. An answer
// asked for because no keychain answered is written to the store, which (a RememberingSecretStore)
// keeps it for the run; a profile that does not save its secrets is asked each time, as it says.
class CredentialResolver : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const std::optional<model::ConnectionSecrets> &)>; // nullopt: cancelled

    CredentialResolver(model::SecretStore *store, QWidget *dialogParent);

    void resolve(const model::ConnectionProfile &profile, const model::ConnectionSecrets &typed, Done done);

private:
    void askFor(const QString &what, const QString &why, std::function<void(std::optional<QString>)> answer);

    model::SecretStore *m_store;
    QPointer<QWidget> m_dialogParent;
};

// Whether a PEM key file is encrypted (and so needs a passphrase); false when it cannot be read.
bool isEncryptedKeyFile(const QString &path);

} // namespace sluice::ui
