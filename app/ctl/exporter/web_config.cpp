// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/exporter/web_config.h"

#include "app/ctl/ctl_tr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslKey>

#include <yaml-cpp/yaml.h>

namespace sluice::app {

namespace {

// A web config, a certificate or a key is a few kilobytes; a chain of CAs a few hundred.
constexpr qint64 maxFileBytes = 1 << 20;

struct ConfigError {
    QString message;
};

QByteArray readFile(const QString &path, const QString &what)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw ConfigError{Ctl::tr("cannot read the %1 %2: %3").arg(what, path, file.errorString())};
    const QByteArray content = file.read(maxFileBytes + 1);
    if (content.size() > maxFileBytes)
        throw ConfigError{Ctl::tr("the %1 %2 is larger than %3 bytes").arg(what, path).arg(maxFileBytes)};
    return content;
}

// Each key of a mapping must be one of `known`; the first that is not is named.
void requireKnownKeys(const YAML::Node &map, const QString &where, const QStringList &known)
{
    if (!map.IsMap())
        throw ConfigError{Ctl::tr("%1 must be a mapping").arg(where)};
    for (const auto &entry : map) {
        const QString key = QString::fromStdString(entry.first.as<std::string>());
        if (!known.contains(key))
            throw ConfigError{
                Ctl::tr("%1 has no setting \"%2\" (known: %3)").arg(where, key, known.join(QStringLiteral(", ")))};
    }
}

QString text(const YAML::Node &map, const char *key)
{
    const YAML::Node value = map[key];
    if (!value)
        return {};
    if (!value.IsScalar())
        throw ConfigError{Ctl::tr("%1 must be a single value").arg(QLatin1String(key))};
    return QString::fromStdString(value.as<std::string>());
}

QString besideConfig(const QString &configPath, const QString &path)
{
    return QFileInfo(path).isRelative() ? QFileInfo(configPath).dir().filePath(path) : path;
}

QSslKey privateKey(const QString &path)
{
    const QByteArray pem = readFile(path, Ctl::tr("key_file"));
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec}) {
        const QSslKey key(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    throw ConfigError{Ctl::tr("key_file %1 holds no unencrypted RSA or EC private key in PEM form").arg(path)};
}

QList<QSslCertificate> certificates(const QString &path, const QString &what)
{
    const QList<QSslCertificate> chain = QSslCertificate::fromData(readFile(path, what), QSsl::Pem);
    if (chain.isEmpty())
        throw ConfigError{Ctl::tr("%1 %2 holds no PEM certificate").arg(what, path)};
    return chain;
}

QSslConfiguration tlsConfiguration(const YAML::Node &tls, const QString &configPath)
{
    requireKnownKeys(tls, QStringLiteral("tls_server_config"),
                     {QStringLiteral("cert_file"), QStringLiteral("key_file"), QStringLiteral("client_auth_type"),
                      QStringLiteral("client_ca_file"), QStringLiteral("min_version")});
    const QString certFile = text(tls, "cert_file");
    const QString keyFile = text(tls, "key_file");
    if (certFile.isEmpty() || keyFile.isEmpty())
        throw ConfigError{Ctl::tr("tls_server_config needs both cert_file and key_file")};
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    const QList<QSslCertificate> chain = certificates(besideConfig(configPath, certFile), QStringLiteral("cert_file"));
    config.setLocalCertificateChain(chain);
    config.setPrivateKey(privateKey(besideConfig(configPath, keyFile)));

    const QString minVersion = text(tls, "min_version");
    if (minVersion.isEmpty() || minVersion == QLatin1String("TLS12"))
        config.setProtocol(QSsl::TlsV1_2OrLater);
    else if (minVersion == QLatin1String("TLS13"))
        config.setProtocol(QSsl::TlsV1_3OrLater);
    else
        throw ConfigError{Ctl::tr("min_version must be TLS12 or TLS13, not \"%1\"").arg(minVersion)};

    const QString clientAuth = text(tls, "client_auth_type");
    const QString clientCa = text(tls, "client_ca_file");
    if (clientAuth == QLatin1String("RequireAndVerifyClientCert")) {
        if (clientCa.isEmpty())
            throw ConfigError{Ctl::tr("client_auth_type RequireAndVerifyClientCert needs client_ca_file")};
        config.setCaCertificates(certificates(besideConfig(configPath, clientCa), QStringLiteral("client_ca_file")));
        config.setPeerVerifyMode(QSslSocket::VerifyPeer);
    } else if (clientAuth.isEmpty() || clientAuth == QLatin1String("NoClientCert")) {
        if (!clientCa.isEmpty())
            throw ConfigError{Ctl::tr("client_ca_file is set but client_auth_type is not RequireAndVerifyClientCert")};
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
    } else {
        throw ConfigError{
            Ctl::tr("client_auth_type must be NoClientCert or RequireAndVerifyClientCert, not \"%1\"").arg(clientAuth)};
    }
    return config;
}

QHash<QString, QByteArray> bcryptUsers(const YAML::Node &users)
{
    if (!users.IsMap())
        throw ConfigError{Ctl::tr("basic_auth_users must map user names to bcrypt hashes")};
    QHash<QString, QByteArray> hashes;
    for (const auto &entry : users) {
        const QString user = QString::fromStdString(entry.first.as<std::string>());
        if (!entry.second.IsScalar())
            throw ConfigError{Ctl::tr("basic_auth_users: %1 must have one bcrypt hash").arg(user)};
        const QByteArray hash = QByteArray::fromStdString(entry.second.as<std::string>());
        // $2a$, $2b$ or $2y$, a two-digit cost, then 53 characters of salt and hash: what htpasswd -B writes.
        static const QRegularExpression bcrypt(QStringLiteral("^\\$2[aby]\\$[0-3][0-9]\\$[./A-Za-z0-9]{53}$"));
        if (!bcrypt.match(QString::fromLatin1(hash)).hasMatch())
            throw ConfigError{Ctl::tr("basic_auth_users: the hash of %1 is not a bcrypt hash ($2y$…, as htpasswd "
                                      "-nB writes); a password is never written here")
                                  .arg(user)};
        if (user.isEmpty() || user.contains(QLatin1Char(':')))
            throw ConfigError{Ctl::tr("basic_auth_users: a user name is empty or holds a colon")};
        hashes.insert(user, hash);
    }
    if (hashes.isEmpty())
        throw ConfigError{Ctl::tr("basic_auth_users is empty: remove it, or name at least one user")};
    return hashes;
}

} // namespace

WebConfig WebConfig::load(const QString &path, std::optional<model::Failure> *failure)
{
    WebConfig config;
    try {
        const YAML::Node root = YAML::Load(readFile(path, Ctl::tr("web config")).toStdString());
        if (root.IsNull())
            throw ConfigError{Ctl::tr("it is empty")};
        requireKnownKeys(root, Ctl::tr("the web config"),
                         {QStringLiteral("tls_server_config"), QStringLiteral("basic_auth_users")});
        if (root["tls_server_config"])
            config.tls = tlsConfiguration(root["tls_server_config"], path);
        if (root["basic_auth_users"])
            config.bcryptByUser = bcryptUsers(root["basic_auth_users"]);
    } catch (const ConfigError &error) {
        *failure = model::Failure::invalid(Ctl::tr("--web-config %1: %2").arg(path, error.message));
    } catch (const YAML::Exception &error) {
        *failure = model::Failure::invalid(
            Ctl::tr("--web-config %1: not valid YAML: %2").arg(path, QString::fromStdString(error.what())));
    }
    return failure->has_value() ? WebConfig{} : config;
}

} // namespace sluice::app
