// SPDX-License-Identifier: GPL-3.0-or-later
// Connection profiles in QSettings: every field survives a round trip, renames replace, duplicates
// and invalid profiles are refused without changing anything, and hand-edited nonsense is left out.

#include "model/connection/connection_profile.h"

#include <QTemporaryDir>
#include <QTest>

using sluice::model::ConnectionProfile;
using sluice::model::ProfileSettings;
using Transport = sluice::redis::ConnectionOptions::Transport;

namespace {

ConnectionProfile tlsSentinelProfile()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("payments eu-1");
    profile.options.transport = Transport::Tls;
    profile.options.sentinels = {{QStringLiteral("10.0.0.1"), 26379}, {QStringLiteral("::1"), 26380}};
    profile.options.sentinelService = QStringLiteral("payments");
    profile.options.user = QStringLiteral("ops");
    profile.options.database = 3;
    profile.options.caFile = QStringLiteral("/etc/ssl/ca.crt");
    profile.options.certFile = QStringLiteral("/etc/ssl/client.crt");
    profile.options.keyFile = QStringLiteral("/etc/ssl/client.key");
    profile.options.serverName = QStringLiteral("redis.internal");
    profile.options.verifyPeer = false;
    profile.ns = QStringLiteral("limits");
    profile.environment = ConnectionProfile::Environment::Production;
    profile.readOnly = true;
    profile.savePassword = false;
    return profile;
}

ConnectionProfile plainProfile(const QString &name)
{
    ConnectionProfile profile;
    profile.name = name;
    profile.options.host = QStringLiteral("127.0.0.1");
    profile.options.port = 6380;
    return profile;
}

} // namespace

class TestConnectionProfile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString settingsPath() const { return m_dir.filePath(QStringLiteral("sluice.conf")); }

private Q_SLOTS:
    void init() { QFile::remove(settingsPath()); }

    void everyFieldSurvivesARoundTrip()
    {
        const ConnectionProfile saved = tlsSentinelProfile();
        {
            QSettings settings(settingsPath(), QSettings::IniFormat);
            QCOMPARE(sluice::model::messageOf(ProfileSettings(&settings).save(saved, {})), QString());
            QCOMPARE(
                sluice::model::messageOf(ProfileSettings(&settings).save(plainProfile(QStringLiteral("dev box")), {})),
                QString());
        }
        QSettings settings(settingsPath(), QSettings::IniFormat);
        const QVector<ConnectionProfile> profiles = ProfileSettings(&settings).profiles();
        QCOMPARE(profiles.size(), 2);
        QCOMPARE(profiles.at(0).name, QStringLiteral("dev box"));
        const ConnectionProfile &read = profiles.at(1);
        QCOMPARE(read.name, saved.name);
        QCOMPARE(read.options.transport, Transport::Tls);
        QCOMPARE(read.options.sentinels.size(), 2);
        QVERIFY(read.options.sentinels.at(1) == saved.options.sentinels.at(1));
        QCOMPARE(read.options.sentinelService, saved.options.sentinelService);
        QCOMPARE(read.options.user, saved.options.user);
        QCOMPARE(read.options.database, 3);
        QCOMPARE(read.options.caFile, saved.options.caFile);
        QCOMPARE(read.options.certFile, saved.options.certFile);
        QCOMPARE(read.options.keyFile, saved.options.keyFile);
        QCOMPARE(read.options.serverName, saved.options.serverName);
        QCOMPARE(read.options.verifyPeer, false);
        QCOMPARE(read.ns, QStringLiteral("limits"));
        QCOMPARE(read.environment, ConnectionProfile::Environment::Production);
        QVERIFY(read.writesNeedConfirmation());
        QVERIFY(read.readOnly);
        QVERIFY(!read.savePassword);
    }

    void renameReplacesAndNamesAreUnique()
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        ProfileSettings profiles(&settings);
        QCOMPARE(sluice::model::messageOf(profiles.save(plainProfile(QStringLiteral("a")), {})), QString());
        QCOMPARE(sluice::model::messageOf(profiles.save(plainProfile(QStringLiteral("b")), {})), QString());
        const auto taken = profiles.save(plainProfile(QStringLiteral("b")), QStringLiteral("a"));
        QVERIFY(taken);
        QVERIFY2(taken->message.contains(QLatin1String("already exists")), qPrintable(taken->message));
        QVERIFY(profiles.save(plainProfile(QStringLiteral("b")), {}));
        QCOMPARE(sluice::model::messageOf(profiles.save(plainProfile(QStringLiteral("c")), QStringLiteral("a"))),
                 QString());
        QVERIFY(!profiles.profile(QStringLiteral("a")));
        QVERIFY(profiles.profile(QStringLiteral("c")));
        ConnectionProfile edited = plainProfile(QStringLiteral("c"));
        edited.options.port = 7000;
        QCOMPARE(sluice::model::messageOf(profiles.save(edited, QStringLiteral("c"))),
                 QString()); // saving in place is no duplicate
        QCOMPARE(profiles.profile(QStringLiteral("c"))->options.port, quint16(7000));
        profiles.remove(QStringLiteral("c"));
        QCOMPARE(profiles.profiles().size(), 1);
    }

    void invalidProfilesChangeNothing_data()
    {
        QTest::addColumn<ConnectionProfile>("profile");
        QTest::addColumn<QString>("expected");
        auto with = [](auto change) {
            ConnectionProfile profile = plainProfile(QStringLiteral("new"));
            change(profile);
            return profile;
        };
        QTest::newRow("empty name") << with([](ConnectionProfile &p) { p.name.clear(); }) << QStringLiteral("name");
        QTest::newRow("slash in name") << with([](ConnectionProfile &p) { p.name = QStringLiteral("a/b"); })
                                       << QStringLiteral("name");
        QTest::newRow("long name") << with([](ConnectionProfile &p) { p.name = QString(65, QLatin1Char('x')); })
                                   << QStringLiteral("name");
        QTest::newRow("trailing newline in name")
            << with([](ConnectionProfile &p) { p.name = QStringLiteral("x\n"); }) << QStringLiteral("name");
        QTest::newRow("leading space") << with([](ConnectionProfile &p) { p.name = QStringLiteral(" x"); })
                                       << QStringLiteral("name");
        QTest::newRow("bad namespace") << with([](ConnectionProfile &p) { p.ns = QStringLiteral("a b"); })
                                       << QStringLiteral("namespace");
        QTest::newRow("namespace with brace")
            << with([](ConnectionProfile &p) { p.ns = QStringLiteral("a{b}"); }) << QStringLiteral("namespace");
        QTest::newRow("namespace with newline")
            << with([](ConnectionProfile &p) { p.ns = QStringLiteral("sluice\n"); }) << QStringLiteral("namespace");
        QTest::newRow("password inside") << with([](ConnectionProfile &p) { p.options.password = QStringLiteral("s"); })
                                         << QStringLiteral("keychain");
        QTest::newRow("no host") << with([](ConnectionProfile &p) { p.options.host.clear(); })
                                 << QStringLiteral("host");
        QTest::newRow("credentials in host")
            << with([](ConnectionProfile &p) { p.options.host = QStringLiteral("u:pw@h"); }) << QStringLiteral("host");
        QTest::newRow("port zero") << with([](ConnectionProfile &p) { p.options.port = 0; }) << QStringLiteral("port");
        QTest::newRow("socket without path")
            << with([](ConnectionProfile &p) { p.options.transport = Transport::Unix; })
            << QStringLiteral("socket path");
        QTest::newRow("sentinel without service") << with([](ConnectionProfile &p) {
            p.options.sentinels = {{QStringLiteral("h"), 1}};
        }) << QStringLiteral("service");
        QTest::newRow("cert without key") << with([](ConnectionProfile &p) {
            p.options.transport = Transport::Tls;
            p.options.certFile = QStringLiteral("c");
        }) << QStringLiteral("go together");
        QTest::newRow("ca without tls") << with([](ConnectionProfile &p) { p.options.caFile = QStringLiteral("ca"); })
                                        << QStringLiteral("need TLS");
        QTest::newRow("negative db") << with([](ConnectionProfile &p) { p.options.database = -1; })
                                     << QStringLiteral("database");
    }

    void invalidProfilesChangeNothing()
    {
        QFETCH(ConnectionProfile, profile);
        QFETCH(QString, expected);
        QSettings settings(settingsPath(), QSettings::IniFormat);
        ProfileSettings profiles(&settings);
        QCOMPARE(sluice::model::messageOf(profiles.save(plainProfile(QStringLiteral("kept")), {})), QString());
        const auto refused = profiles.save(profile, QStringLiteral("kept"));
        QVERIFY(refused);
        QVERIFY2(refused->message.contains(expected), qPrintable(refused->message));
        QCOMPARE(profiles.profiles().size(), 1);
        QCOMPARE(profiles.profiles().first().name, QStringLiteral("kept"));
    }

    void handEditedNonsenseIsLeftOut()
    {
        {
            QSettings settings(settingsPath(), QSettings::IniFormat);
            QCOMPARE(
                sluice::model::messageOf(ProfileSettings(&settings).save(plainProfile(QStringLiteral("good")), {})),
                QString());
            settings.setValue(QStringLiteral("profiles/pigeon/transport"), QStringLiteral("carrier-pigeon"));
            settings.setValue(QStringLiteral("profiles/pigeon/host"), QStringLiteral("h"));
            settings.setValue(QStringLiteral("profiles/staged/transport"), QStringLiteral("tcp"));
            settings.setValue(QStringLiteral("profiles/staged/host"), QStringLiteral("h"));
            settings.setValue(QStringLiteral("profiles/staged/environment"), QStringLiteral("qa-ish"));
        }
        QSettings settings(settingsPath(), QSettings::IniFormat);
        const auto profiles = ProfileSettings(&settings).profiles();
        QCOMPARE(profiles.size(), 1);
        QCOMPARE(profiles.first().name, QStringLiteral("good"));
    }
};

QTEST_GUILESS_MAIN(TestConnectionProfile)
#include "tst_connection_profile.moc"
