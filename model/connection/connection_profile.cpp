// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/connection_profile.h"

#include "model/connection/key_namespace.h"
#include "model/files/own_files.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <qplatformdefs.h>

#include <algorithm>

namespace sluice::model {

namespace {

using Transport = redis::ConnectionOptions::Transport;

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::ConnectionProfile)
};

const QString group = QStringLiteral("profiles");
const ProfileSettings::Kept everyKept[] = {ProfileSettings::Kept::WatchList, ProfileSettings::Kept::FireChoices};

QString transportName(Transport transport)
{
    switch (transport) {
    case Transport::Tcp: return QStringLiteral("tcp");
    case Transport::Tls: return QStringLiteral("tls");
    case Transport::Unix: return QStringLiteral("unix");
    }
    return {};
}

std::optional<Transport> transportFromName(const QString &name)
{
    for (Transport transport : {Transport::Tcp, Transport::Tls, Transport::Unix})
        if (transportName(transport) == name)
            return transport;
    return std::nullopt;
}

} // namespace

QString ConnectionProfile::environmentName(Environment environment)
{
    switch (environment) {
    case Environment::Dev: return QStringLiteral("dev");
    case Environment::Staging: return QStringLiteral("staging");
    case Environment::Production: return QStringLiteral("production");
    }
    return {};
}

std::optional<ConnectionProfile::Environment> ConnectionProfile::environmentFromName(const QString &name)
{
    for (Environment environment : {Environment::Dev, Environment::Staging, Environment::Production})
        if (environmentName(environment) == name)
            return environment;
    return std::nullopt;
}

ConnectionRoute ConnectionProfile::route() const
{
    if (options.usesSentinel())
        return ConnectionRoute::Sentinel;
    return options.transport == Transport::Unix ? ConnectionRoute::Socket : ConnectionRoute::Host;
}

bool ConnectionProfile::usesTls() const
{
    return options.transport == Transport::Tls;
}

void ConnectionProfile::setRoute(ConnectionRoute route, bool tls)
{
    options.transport = route == ConnectionRoute::Socket ? Transport::Unix : tls ? Transport::Tls : Transport::Tcp;
}

QString ConnectionProfile::sentinelList() const
{
    QStringList sentinels;
    for (const redis::HostPort &sentinel : options.sentinels)
        sentinels << sentinel.toString();
    return sentinels.join(QLatin1String(", "));
}

QStringList ConnectionProfile::setSentinelList(const QString &list)
{
    QStringList items;
    for (const QString &item : list.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!item.trimmed().isEmpty())
            items << item.trimmed();
    options.sentinels.clear();
    if (items.isEmpty())
        return {Text::tr("a Sentinel profile needs at least one sentinel as host:port")};
    QStringList found;
    for (int i = 0; i < items.size(); ++i) {
        redis::HostPort sentinel;
        QString error;
        if (redis::HostPort::parse(items.at(i), &sentinel, &error))
            options.sentinels << sentinel;
        else
            found << Text::tr("sentinel %1 of %2: %3").arg(i + 1).arg(items.size()).arg(error);
    }
    return found;
}

bool ConnectionProfile::setFromUrl(const QString &url, QString *password, QString *error)
{
    redis::ConnectionOptions parsed;
    if (!redis::ConnectionOptions::fromUrl(url, &parsed, error))
        return false;
    *password = parsed.password;
    parsed.password.clear();
    options = parsed;
    return true;
}

redis::ConnectionOptions ConnectionProfile::resolved(const ConnectionSecrets &secrets) const
{
    redis::ConnectionOptions withSecrets = options;
    withSecrets.password = secrets.password;
    withSecrets.keyPassphrase = secrets.keyPassphrase;
    return withSecrets;
}

QStringList ConnectionProfile::problems() const
{
    static const QRegularExpression nameRule(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.-][A-Za-z0-9 _.-]{0,63}")));
    QStringList found;
    if (!nameRule.match(name).hasMatch())
        found << Text::tr(
            "the name must be 1 to 64 letters, digits, spaces, '_', '.' or '-', not starting with a space");
    if (const auto problem = namespaceProblem(ns))
        found << problem->message;
    if (!options.password.isEmpty() || !options.keyPassphrase.isEmpty())
        found << Text::tr("passwords and key passphrases are kept in the keychain, never in the profile");
    if (options.usesSentinel()) {
        if (options.sentinelService.trimmed().isEmpty())
            found << Text::tr("a Sentinel profile needs the service name");
        if (options.transport == Transport::Unix)
            found << Text::tr("sentinels are reached over TCP or TLS, not a unix socket");
    } else if (options.transport == Transport::Unix) {
        if (options.socketPath.trimmed().isEmpty())
            found << Text::tr("a unix socket profile needs the socket path");
    } else {
        if (options.host.trimmed().isEmpty())
            found << Text::tr("the host is empty");
        else if (!redis::HostPort::isValidHost(options.host.trimmed()))
            found << Text::tr("the host must be a name or address alone (no user, password, brackets or spaces)");
        if (options.port == 0)
            found << Text::tr("the port must be between 1 and 65535");
    }
    if (options.database < 0)
        found << Text::tr("the database must be 0 or more");
    if (options.certFile.isEmpty() != options.keyFile.isEmpty())
        found << Text::tr("a client certificate and its key go together");
    if (options.transport != Transport::Tls && (!options.caFile.isEmpty() || !options.certFile.isEmpty()))
        found << Text::tr("certificate files need TLS");
    return found;
}

ProfileSettings::ProfileSettings(QSettings *settings)
    : m_settings(settings)
{
}

std::unique_ptr<QSettings> ProfileSettings::openShared(QString *problem)
{
    // QSettings writes through its own save file; what Sluice can do is make sure that the folder it writes
    // in is this user's alone, and that the file is not a FIFO or a device (a link there is the user's own
    // doing once the folder is theirs), before QSettings opens it. Otherwise the settings live in a private
    // folder for this run only, and nothing is read from or written to what someone else planted. The path
    // is QSettings' own for ("Sluice", "Sluice") on Unix: the XDG configuration folder's Sluice/Sluice.conf.
    const QString path = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
        + QStringLiteral("/Sluice/Sluice.conf");
    std::optional<Failure> refused = ensurePrivateFolder(QFileInfo(path).absolutePath());
    QT_STATBUF status;
    if (!refused && QT_STAT(QFile::encodeName(path).constData(), &status) == 0 && !S_ISREG(status.st_mode))
        refused = Failure::invalid(Text::tr("%1 is not a regular file").arg(path));
    if (!refused)
        return std::make_unique<QSettings>(QStringLiteral("Sluice"), QStringLiteral("Sluice"));
    static QTemporaryDir fallback;
    if (problem)
        *problem = Text::tr("connection profiles are not read or saved this run: %1").arg(refused->message);
    return std::make_unique<QSettings>(fallback.filePath(QStringLiteral("Sluice.conf")), QSettings::IniFormat);
}

QVector<ConnectionProfile> ProfileSettings::profiles() const
{
    m_settings->beginGroup(group);
    const QStringList names = m_settings->childGroups();
    m_settings->endGroup();
    QVector<ConnectionProfile> result;
    for (const QString &name : names)
        if (auto found = profile(name))
            result << *found;
    std::sort(result.begin(), result.end(), [](const ConnectionProfile &a, const ConnectionProfile &b) {
        return a.name.compare(b.name, Qt::CaseInsensitive) < 0;
    });
    return result;
}

std::optional<ConnectionProfile> ProfileSettings::profile(const QString &name) const
{
    m_settings->beginGroup(group + QLatin1Char('/') + name);
    const bool exists = !m_settings->childKeys().isEmpty();
    const auto transport = transportFromName(m_settings->value(QStringLiteral("transport")).toString());
    const auto environment
        = ConnectionProfile::environmentFromName(m_settings->value(QStringLiteral("environment")).toString());
    if (!exists || !transport || !environment) {
        m_settings->endGroup();
        return std::nullopt; // a hand-edited entry that no longer makes sense is not offered
    }
    ConnectionProfile profile;
    profile.name = name;
    profile.environment = *environment;
    redis::ConnectionOptions &options = profile.options;
    options.transport = *transport;
    options.host = m_settings->value(QStringLiteral("host")).toString();
    options.port = static_cast<quint16>(m_settings->value(QStringLiteral("port"), 6379).toUInt());
    options.socketPath = m_settings->value(QStringLiteral("socket")).toString();
    options.user = m_settings->value(QStringLiteral("user")).toString();
    options.database = m_settings->value(QStringLiteral("database"), 0).toInt();
    options.caFile = m_settings->value(QStringLiteral("ca_file")).toString();
    options.certFile = m_settings->value(QStringLiteral("cert_file")).toString();
    options.keyFile = m_settings->value(QStringLiteral("key_file")).toString();
    options.serverName = m_settings->value(QStringLiteral("server_name")).toString();
    options.verifyPeer = m_settings->value(QStringLiteral("verify_peer"), true).toBool();
    options.sentinelService = m_settings->value(QStringLiteral("sentinel_service")).toString();
    bool sentinelsOk = true;
    for (const QString &item : m_settings->value(QStringLiteral("sentinels")).toStringList()) {
        redis::HostPort sentinel;
        QString ignored;
        sentinelsOk = sentinelsOk && redis::HostPort::parse(item, &sentinel, &ignored);
        options.sentinels << sentinel;
    }
    profile.ns = m_settings->value(QStringLiteral("namespace"), QStringLiteral("sluice")).toString();
    profile.readOnly = m_settings->value(QStringLiteral("read_only"), false).toBool();
    profile.savePassword = m_settings->value(QStringLiteral("save_password"), true).toBool();
    profile.noPassword = m_settings->value(QStringLiteral("no_password"), false).toBool();
    m_settings->endGroup();
    if (!sentinelsOk || !profile.problems().isEmpty())
        return std::nullopt;
    return profile;
}

std::optional<Failure> ProfileSettings::save(const ConnectionProfile &profile, const QString &previousName)
{
    const QStringList problems = profile.problems();
    if (!problems.isEmpty())
        return Failure::invalid(problems.join(QLatin1String("; ")));
    m_settings->beginGroup(group);
    const QStringList existing = m_settings->childGroups();
    m_settings->endGroup();
    if (profile.name != previousName && existing.contains(profile.name))
        return Failure{Failure::Kind::Conflict, Text::tr("a profile named \"%1\" already exists").arg(profile.name)};
    if (!previousName.isEmpty())
        remove(previousName);
    remove(profile.name);
    const redis::ConnectionOptions &options = profile.options;
    QStringList sentinels;
    for (const redis::HostPort &sentinel : options.sentinels)
        sentinels << sentinel.toString();
    m_settings->beginGroup(group + QLatin1Char('/') + profile.name);
    m_settings->setValue(QStringLiteral("transport"), transportName(options.transport));
    m_settings->setValue(QStringLiteral("host"), options.host);
    m_settings->setValue(QStringLiteral("port"), options.port);
    m_settings->setValue(QStringLiteral("socket"), options.socketPath);
    m_settings->setValue(QStringLiteral("user"), options.user);
    m_settings->setValue(QStringLiteral("database"), options.database);
    m_settings->setValue(QStringLiteral("ca_file"), options.caFile);
    m_settings->setValue(QStringLiteral("cert_file"), options.certFile);
    m_settings->setValue(QStringLiteral("key_file"), options.keyFile);
    m_settings->setValue(QStringLiteral("server_name"), options.serverName);
    m_settings->setValue(QStringLiteral("verify_peer"), options.verifyPeer);
    m_settings->setValue(QStringLiteral("sentinels"), sentinels);
    m_settings->setValue(QStringLiteral("sentinel_service"), options.sentinelService);
    m_settings->setValue(QStringLiteral("namespace"), profile.ns);
    m_settings->setValue(QStringLiteral("environment"), ConnectionProfile::environmentName(profile.environment));
    m_settings->setValue(QStringLiteral("read_only"), profile.readOnly);
    m_settings->setValue(QStringLiteral("save_password"), profile.savePassword);
    m_settings->setValue(QStringLiteral("no_password"), profile.noPassword);
    m_settings->endGroup();
    m_settings->sync();
    return std::nullopt;
}

void ProfileSettings::setLastUsed(const QString &name)
{
    m_settings->setValue(QStringLiteral("dashboard/lastProfile"), name);
    m_settings->sync();
}

QString ProfileSettings::lastUsed() const
{
    return m_settings->value(QStringLiteral("dashboard/lastProfile")).toString();
}

QString ProfileSettings::keptKey(Kept kept, const QString &name)
{
    return (kept == Kept::WatchList ? QStringLiteral("watched/") : QStringLiteral("fire/")) + name;
}

void ProfileSettings::forgetKept(const QString &name)
{
    if (name.isEmpty())
        return;
    for (Kept kept : everyKept)
        m_settings->remove(keptKey(kept, name));
    m_settings->sync();
}

void ProfileSettings::moveKept(const QString &from, const QString &to)
{
    if (from.isEmpty() || to.isEmpty() || from == to)
        return;
    for (Kept kept : everyKept) {
        const QVariant value = m_settings->value(keptKey(kept, from));
        m_settings->remove(keptKey(kept, from));
        if (value.isValid())
            m_settings->setValue(keptKey(kept, to), value);
    }
    m_settings->sync();
}

void ProfileSettings::remove(const QString &name)
{
    if (name.isEmpty())
        return;
    m_settings->remove(group + QLatin1Char('/') + name);
    m_settings->sync();
}

} // namespace sluice::model
