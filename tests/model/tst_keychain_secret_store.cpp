// The real OS keychain: gnome-keyring in the test command's D-Bus session stores, reads and
// deletes a password through QtKeychain.

#include "model/secret_store.h"

#include <QEventLoop>
#include <QTest>
#include <QTimer>
#include <QUuid>

using sluice::model::KeychainSecretStore;
using sluice::model::SecretStore;

namespace {

template <typename Start>
SecretStore::Result await(Start start)
{
    QEventLoop loop;
    SecretStore::Result result;
    result.error = QStringLiteral("no answer from the keychain within 10 s");
    start(&loop, [&](const SecretStore::Result &r) {
        result = r;
        loop.quit();
    });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    return result;
}

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

        auto written = await([&](QObject *context, SecretStore::Callback done) { store.write(key, secret, context, done); });
        QVERIFY2(written.ok, qPrintable(written.error));

        auto read = await([&](QObject *context, SecretStore::Callback done) { store.read(key, context, done); });
        QVERIFY2(read.ok, qPrintable(read.error));
        QCOMPARE(read.secret, secret);

        auto removed = await([&](QObject *context, SecretStore::Callback done) { store.remove(key, context, done); });
        QVERIFY2(removed.ok, qPrintable(removed.error));

        auto gone = await([&](QObject *context, SecretStore::Callback done) { store.read(key, context, done); });
        QVERIFY(!gone.ok);
        QVERIFY2(gone.notFound, qPrintable(gone.error));
        QVERIFY(!gone.error.contains(secret));
    }
};

QTEST_GUILESS_MAIN(TestKeychainSecretStore)
#include "tst_keychain_secret_store.moc"
