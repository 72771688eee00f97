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

// How a profile reaches its server, in the connection form's terms.
enum class ConnectionRoute { Host, Socket, Sentinel };

// The secrets a connection opens with, however they were found (typed, the keychain, a prompt).
struct ConnectionSecrets {
    QString password;
    QString keyPassphrase;
};

// A named way to reach one deployment, as an operator saves it. Its password is never part of it:
// that lives in the keychain under passwordKey().
struct ConnectionProfile {
    enum class Environment { Dev, Staging, Production };

    QString name;
    redis::ConnectionOptions options; // options.password and keyPassphrase stay empty here
    QString ns = QStringLiteral("sluice");
    Environment environment = Environment::Dev;
    bool readOnly = false;    // refuses every write
    bool savePassword = true; // the password and key passphrase live in the keychain; false: asked for at each connect
    bool noPassword = false;  // the server asks for none: never asked for, read or kept (a key passphrase still is)

    // The limiter library this profile's namespace and database publish and call.
    LibraryOwner libraryOwner() const { return {ns, options.database}; }
    // Production connections ask before any write.
    bool writesNeedConfirmation() const { return environment == Environment::Production; }
    // What is wrong with the profile, one sentence per problem; empty when it can be saved.
    QStringList problems() const;
    QString passwordKey() const { return QStringLiteral("profile/%1/password").arg(name); }
    QString keyPassphraseKey() const { return QStringLiteral("profile/%1/key-passphrase").arg(name); }

    ConnectionRoute route() const;
    bool usesTls() const;
    // The transport for `route`, TLS or not (a socket has none); a Sentinel route also needs sentinels.
    void setRoute(ConnectionRoute route, bool tls);
    // The sentinels as "host:port, host:port".
    QString sentinelList() const;
    // Takes the sentinels from a comma-separated list; returns a problem per entry that is not host:port
    // (named by position: an entry typed as user:password@host is never repeated), or that the list is empty.
    QStringList setSentinelList(const QString &list);
    // Fills the connection fields from a redis://, rediss:// or unix:// URL; its password goes to *password,
    // never into the profile. False and *error when the URL cannot be read, and the profile is unchanged.
    bool setFromUrl(const QString &url, QString *password, QString *error);
    // The options a client connects with: the profile's, with `secrets` filled in.
    redis::ConnectionOptions resolved(const ConnectionSecrets &secrets) const;

    static QString environmentName(Environment environment);
    static std::optional<Environment> environmentFromName(const QString &name);
};

// Profiles kept in QSettings, under "profiles/<name>/": every field but secrets.
class ProfileSettings {
public:
    explicit ProfileSettings(QSettings *settings);
    // The settings file the dashboard and sluicectl share (~/.config/Sluice/Sluice.conf on Linux).
    // The settings every Sluice program shares. When their folder is not this user's own (a link, another
    // user's) or the file is not a regular one, settings for this run only, and `problem` says why.
    static std::unique_ptr<QSettings> openShared(QString *problem = nullptr);

    QVector<ConnectionProfile> profiles() const; // sorted by name; unreadable entries are left out
    std::optional<ConnectionProfile> profile(const QString &name) const;
    // Saves `profile`, replacing `previousName` when renaming (empty for a new one), or says why
    // not (an invalid profile, a name already taken), and then nothing changes.
    [[nodiscard]] std::optional<Failure> save(const ConnectionProfile &profile, const QString &previousName);
    void remove(const QString &name);
    // What views keep per profile beside its own group, which every save rewrites, under keptKey(): removed
    // with a deleted profile, moved with a renamed one.
    enum class Kept { WatchList, FireChoices };
    static QString keptKey(Kept kept, const QString &name); // "watched/<name>", "fire/<name>"
    void forgetKept(const QString &name);
    void moveKept(const QString &from, const QString &to);
    // The profile the dashboard last connected with (what it opens when started with no target).
    void setLastUsed(const QString &name);
    QString lastUsed() const;

private:
    QSettings *m_settings;
};

} // namespace sluice::model
