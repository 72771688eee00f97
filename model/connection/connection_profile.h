// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/library_owner.h"
#include "redis/connection_options.h"

#include <QSettings>
#include <QStringList>

#include <memory>
#include <optional>

namespace sluice::model {

// The screens edit a profile's connection fields under these names; the types belong to redis/.
using ConnectionOptions = redis::ConnectionOptions;
using HostPort = redis::HostPort;

// A named way to reach one deployment, as an operator saves it. Its password is never part of it:
// that lives in the keychain under passwordKey().
struct ConnectionProfile {
    enum class Environment { Dev, Staging, Production };

    QString name;
    redis::ConnectionOptions options; // options.password and keyPassphrase stay empty here
    QString ns = QStringLiteral("sluice");
    Environment environment = Environment::Dev;
    bool readOnly = false; // refuses every write
    bool savePassword = true; // the password and key passphrase live in the keychain; false: asked for at each connect

    // The limiter library this profile's namespace and database publish and call.
    LibraryOwner libraryOwner() const { return {ns, options.database}; }
    // Production connections ask before any write.
    bool writesNeedConfirmation() const { return environment == Environment::Production; }
    // What is wrong with the profile, one sentence per problem; empty when it can be saved.
    QStringList problems() const;
    QString passwordKey() const { return QStringLiteral("profile/%1/password").arg(name); }
    QString keyPassphraseKey() const { return QStringLiteral("profile/%1/key-passphrase").arg(name); }

    static QString environmentName(Environment environment);
    static std::optional<Environment> environmentFromName(const QString &name);
};

// Profiles kept in QSettings, under "profiles/<name>/": every field but secrets.
class ProfileSettings {
public:
    explicit ProfileSettings(QSettings *settings);
    // The settings file the dashboard and sluicectl share (~/.config/Sluice/Sluice.conf on Linux).
    static std::unique_ptr<QSettings> openShared();

    QVector<ConnectionProfile> profiles() const; // sorted by name; unreadable entries are left out
    std::optional<ConnectionProfile> profile(const QString &name) const;
    // Saves `profile`, replacing `previousName` when renaming (empty for a new one); false and
    // False and *failure on an invalid profile or a name already taken, and then nothing changes.
    bool save(const ConnectionProfile &profile, const QString &previousName, Failure *failure);
    void remove(const QString &name);
    // The profile the dashboard last connected with (what it opens when started with no target).
    void setLastUsed(const QString &name);
    QString lastUsed() const;

private:
    QSettings *m_settings;
};

} // namespace sluice::model
