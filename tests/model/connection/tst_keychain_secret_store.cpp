// SPDX-License-Identifier: GPL-3.0-or-later
// The real OS keychain: gnome-keyring in the test command's D-Bus session stores, reads and
// deletes a password through QtKeychain; a profile's password reaches Redis from there and never
// reaches the settings file or the log.

#include "model/connection/connection_profile.h"
#include "model/connection/keychain_secret_store.h"
#include "model/connection/profile_secrets.h"
#include "model/connection/secret_store.h"
#include "redis/redis_client.h"
#include "support/await_secret.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QLoggingCategory>
#include <QMutex>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using sluice::model::KeychainSecretStore;
using sluice::model::SecretStore;

namespace {

// Everything logged while alive, every category at every level.
class LogCapture {
public:
    LogCapture()
    {
        s_lines.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("*.debug=true"));
        m_previous = qInstallMessageHandler([](QtMsgType, const QMessageLogContext &, const QString &message) {
            const QMutexLocker lock(&s_mutex);
            s_lines << message;
        });
    }
    ~LogCapture()
    {
        qInstallMessageHandler(m_previous);
        QLoggingCategory::setFilterRules(QString());
    }
    static QString text()
    {
        const QMutexLocker lock(&s_mutex);
        return s_lines.join(QLatin1Char('\n'));
    }

private:
    QtMessageHandler m_previous = nullptr;
    static inline QMutex s_mutex;
    static inline QStringList s_lines;
};

} // namespace

class TestKeychainSecretStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
            QFAIL("the keychain is not available: no D-Bus session (run the suite with ./dev.sh test, "
                  "which starts one with an unlocked gnome-keyring)");
    }

    void storesReadsAndDeletes()
    {
        KeychainSecretStore store(QStringLiteral("Sluice tests"));
        const QString key = QStringLiteral("profile-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
        const QString secret = QStringLiteral("p\u00e4ss w0rd:%1").arg(QUuid::createUuid().toString());

        auto written = sluice::test::awaitSecret(
            [&](QObject *context, SecretStore::Callback done) { store.write(key, secret, context, done); });
        QVERIFY2(written.ok(), qPrintable(sluice::model::messageOf(written.failure)));

        auto read = sluice::test::awaitSecret(
            [&](QObject *context, SecretStore::Callback done) { store.read(key, context, done); });
        QVERIFY2(read.ok(), qPrintable(sluice::model::messageOf(read.failure)));
        QCOMPARE(read.secret, secret);

        auto removed = sluice::test::awaitSecret(
            [&](QObject *context, SecretStore::Callback done) { store.remove(key, context, done); });
        QVERIFY2(removed.ok(), qPrintable(sluice::model::messageOf(removed.failure)));

        auto gone = sluice::test::awaitSecret(
            [&](QObject *context, SecretStore::Callback done) { store.read(key, context, done); });
        QVERIFY(!gone.ok());
        QVERIFY2(gone.notFound, qPrintable(sluice::model::messageOf(gone.failure)));
        QVERIFY(!sluice::model::messageOf(gone.failure).contains(secret));
    }

    void profilePasswordNeverReachesSettingsOrLog()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(admin, "SLUICE_TEST_ACL_ADMIN", "the admin ACL user");
        const QString password = admin.section(QLatin1Char(':'), 1);
        const QString wrongPassword = QStringLiteral("wrong-") + QUuid::createUuid().toString(QUuid::Id128);
        QTemporaryDir dir;
        const QString settingsPath = dir.filePath(QStringLiteral("sluice.conf"));
        KeychainSecretStore store(QStringLiteral("Sluice tests"));
        LogCapture log;

        sluice::model::ConnectionProfile profile;
        profile.name = QStringLiteral("acl ") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        profile.options = sluice::test::optionsFor(url);
        profile.options.user = admin.section(QLatin1Char(':'), 0, 0);
        {
            QSettings settings(settingsPath, QSettings::IniFormat);
            QCOMPARE(sluice::model::messageOf(sluice::model::ProfileSettings(&settings).save(profile, {})), QString());
        }
        auto written = sluice::test::awaitSecret([&](QObject *context, SecretStore::Callback done) {
            store.write(profile.passwordKey(), password, context, done);
        });
        QVERIFY2(written.ok(), qPrintable(sluice::model::messageOf(written.failure)));

        // Connecting as the GUI does: the profile from settings, the password from the keychain.
        QSettings settings(settingsPath, QSettings::IniFormat);
        const auto loaded = sluice::model::ProfileSettings(&settings).profile(profile.name);
        QVERIFY(loaded);
        std::optional<sluice::model::ProfileSecrets> secrets;
        sluice::model::readProfileSecrets(store, *loaded, this,
                                          [&](const sluice::model::ProfileSecrets &read) { secrets = read; });
        QVERIFY(sluice::test::spinUntil([&] { return secrets.has_value(); }));
        QVERIFY2(secrets->keychainError.isEmpty(), qPrintable(secrets->keychainError));
        QCOMPARE(secrets->password, std::optional<QString>(password));
        QVERIFY(!secrets->keyPassphrase); // the profile has no client key
        sluice::redis::ConnectionOptions options = loaded->options;
        options.password = *secrets->password;
        sluice::redis::RedisClient client(options);
        QVERIFY2(sluice::test::openAndWait(client), qPrintable(client.lastError()));
        QVERIFY(sluice::test::syncCommand(client, {"PING"}).ok());

        // A wrong password fails with the server's reason and without the password.
        options.password = wrongPassword;
        sluice::redis::RedisClient refused(options);
        refused.setAutoReconnect(false);
        QVERIFY(!sluice::test::openAndWait(refused));
        QVERIFY2(refused.lastError().contains(QLatin1String("WRONGPASS")), qPrintable(refused.lastError()));

        auto removed = sluice::test::awaitSecret(
            [&](QObject *context, SecretStore::Callback done) { store.remove(loaded->passwordKey(), context, done); });
        QVERIFY2(removed.ok(), qPrintable(sluice::model::messageOf(removed.failure)));

        QFile file(settingsPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray saved = file.readAll();
        QVERIFY2(saved.contains(profile.options.user.toUtf8()), "the settings file holds the profile");
        for (const QString &secret : {password, wrongPassword}) {
            QVERIFY2(!saved.contains(secret.toUtf8()), "a password reached the settings file");
            QVERIFY2(!LogCapture::text().contains(secret), "a password reached the log");
            QVERIFY(!refused.lastError().contains(secret) && !client.lastError().contains(secret));
        }
    }
};

QTEST_GUILESS_MAIN(TestKeychainSecretStore)
#include "tst_keychain_secret_store.moc"
