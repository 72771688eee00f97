// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/connection/credential_resolver.h"

#include "model/connection/profile_secrets.h"

#include <QFile>
#include <QInputDialog>
#include <QLineEdit>

#include <memory>

namespace sluice::ui {

bool isEncryptedKeyFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) && file.read(64 * 1024).contains("ENCRYPTED");
}

CredentialResolver::CredentialResolver(model::SecretStore *store, QWidget *dialogParent)
    : QObject(dialogParent)
    , m_store(store)
    , m_dialogParent(dialogParent)
{
}

void CredentialResolver::resolve(const model::ConnectionProfile &profile, const model::ConnectionSecrets &typed,
                                 Done done)
{
    model::readProfileSecrets(*m_store, profile, this,
                              [this, profile, typed, done](const model::ProfileSecrets &secrets) {
        auto found = std::make_shared<model::ConnectionSecrets>();
        found->password = !typed.password.isEmpty() ? typed.password : secrets.password.value_or(QString());
        found->keyPassphrase
            = !typed.keyPassphrase.isEmpty() ? typed.keyPassphrase : secrets.keyPassphrase.value_or(QString());

        const QString why = !profile.savePassword
            ? tr("Profile \u201c%1\u201d asks for its secrets each time.").arg(profile.name)
            : tr("The keychain did not answer (%1), so nothing can be read from it or saved in it.")
                  .arg(secrets.keychainError);
        const bool keychainDown = profile.savePassword && !secrets.keychainError.isEmpty();
        const bool mustAsk = !profile.savePassword || keychainDown;
        // What was asked for because no keychain answered is offered to it, so that this run's store
        // (RememberingSecretStore) keeps it and the operator is not asked again at the next Test or Connect.
        auto remember = [this, keychainDown](const QString &key, const QString &secret) {
            if (keychainDown)
                m_store->write(key, secret, this, [](const model::SecretStore::Result &) {});
        };
        const bool askPassword = mustAsk && typed.password.isEmpty() && !profile.noPassword;
        const bool askPassphrase = mustAsk && typed.keyPassphrase.isEmpty() && !profile.options.keyFile.isEmpty()
            && isEncryptedKeyFile(profile.options.keyFile);

        auto finish = [found, done] { done(*found); };
        auto passphraseStep = [this, found, profile, why, askPassphrase, finish, done, remember] {
            if (!askPassphrase)
                return finish();
            askFor(tr("Passphrase of the client key %1").arg(profile.options.keyFile), why,
                   [found, finish, done, remember, key = profile.keyPassphraseKey()](std::optional<QString> answer) {
                if (!answer)
                    return done(std::nullopt);
                found->keyPassphrase = *answer;
                remember(key, *answer);
                finish();
            });
        };
        if (!askPassword)
            return passphraseStep();
        const QString &user = profile.options.user;
        const QString who = user.isEmpty() ? tr("Password") : tr("Password of user %1").arg(user);
        askFor(who, why,
               [found, passphraseStep, done, remember, key = profile.passwordKey()](std::optional<QString> answer) {
            if (!answer)
                return done(std::nullopt);
            found->password = *answer;
            remember(key, *answer);
            passphraseStep();
        });
    });
}

void CredentialResolver::askFor(const QString &what, const QString &why,
                                std::function<void(std::optional<QString>)> answer)
{
    auto *prompt = new QInputDialog(m_dialogParent);
    prompt->setObjectName(QStringLiteral("secretPrompt"));
    prompt->setAttribute(Qt::WA_DeleteOnClose);
    prompt->setWindowTitle(tr("Sluice \u2014 secret needed"));
    prompt->setLabelText(QStringLiteral("%1\n\n%2 (leave empty if there is none):").arg(why, what));
    prompt->setTextEchoMode(QLineEdit::Password);
    prompt->setWindowModality(Qt::WindowModal);
    connect(prompt, &QDialog::finished, this, [prompt, answer](int result) {
        answer(result == QDialog::Accepted ? std::optional<QString>(prompt->textValue()) : std::nullopt);
    });
    prompt->open();
}

} // namespace sluice::ui
