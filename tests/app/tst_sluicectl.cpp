// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl as a script would run it: output, exit codes and error messages.

#include "model/connection/connection_profile.h"
#include "model/connection/keychain_secret_store.h"
#include "model/connection/secret_store.h"
#include "model/format/terminal_text.h"
#include "model/limiter/seed_layouts.h"
#include "redis/redis_connection.h"
#include "support/await_secret.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/timing_bounds.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <sys/stat.h>

using Run = sluice::test::CtlRun;
using sluice::test::sluicectl;
using sluice::test::writeFile;

namespace {

// The objects of `keys --json`, one a line, by their "id".
QMap<QString, QJsonObject> byId(const QString &lines)
{
    QMap<QString, QJsonObject> objects;
    for (const QString &line : lines.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QJsonObject object = QJsonDocument::fromJson(line.toUtf8()).object();
        objects.insert(object[QLatin1String("id")].toString(), object);
    }
    return objects;
}

// How long sluicectl takes to start and fail at once (a refused connection) on this machine now: the
// part of a timed run that is not the wait being timed.
qint64 processStartMs()
{
    return sluicectl({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("ping")})
        .elapsedMs;
}

} // namespace

using namespace sluice;
using sluice::test::js;

class TestSluicectl : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pingPrintsVersionAndMode()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const Run run = sluicectl({QStringLiteral("--url"), url, QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Redis 7.")) && run.out.contains(QLatin1String("standalone")),
                 qPrintable(run.out));
        QVERIFY(run.err.isEmpty());
    }

    void pingReportsClusterAndSentinelModes()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        const Run cluster
            = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0),
                         QStringLiteral("ping")});
        QCOMPARE(cluster.exitCode, 0);
        QVERIFY2(cluster.out.contains(QLatin1String("cluster of 3 primaries")), qPrintable(cluster.out));
        const Run sentinelRun
            = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + sentinel, QStringLiteral("ping")});
        QCOMPARE(sentinelRun.exitCode, 0);
        QVERIFY2(sentinelRun.out.trimmed().endsWith(QLatin1String("sentinel")), qPrintable(sentinelRun.out));
        // Through the sentinel, to the primary it names.
        SLUICE_REQUIRE_SERVICE(service, "SLUICE_TEST_SENTINEL_SERVICE", "the Sentinel service name");
        const Run viaSentinel
            = sluicectl({QStringLiteral("-u"), QStringLiteral("redis-sentinel://%1#%2").arg(sentinel, service),
                         QStringLiteral("ping")});
        QCOMPARE(viaSentinel.exitCode, 0);
        QVERIFY2(viaSentinel.out.contains(QStringLiteral("of Sentinel service \"%1\"").arg(service)),
                 qPrintable(viaSentinel.out));
    }

    void redisCliFlags()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        SLUICE_REQUIRE_SERVICE(socket, "SLUICE_TEST_REDIS_SOCKET", "Redis standalone (unix socket)");
        const QString port = url.section(QLatin1Char(':'), -1);
        const Run hostPort = sluicectl({QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), port,
                                        QStringLiteral("-n"), QStringLiteral("2"), QStringLiteral("ping")});
        QCOMPARE(hostPort.exitCode, 0);
        QVERIFY2(hostPort.out.startsWith(QStringLiteral("PONG from redis://127.0.0.1:%1/2:").arg(port)),
                 qPrintable(hostPort.out));
        const Run unixRun = sluicectl({QStringLiteral("-s"), socket, QStringLiteral("ping")});
        QCOMPARE(unixRun.exitCode, 0);
        QVERIFY2(unixRun.out.startsWith(QStringLiteral("PONG from unix://%1:").arg(socket)), qPrintable(unixRun.out));
    }

    // Cluster names its primaries in its own order; sluicectl lists them by address, as the dashboard does.
    void clusterPrimariesAreListedByAddress()
    {
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        const QString seed = QStringLiteral("redis://") + seeds.section(QLatin1Char(','), 0, 0);
        const Run status = sluicectl({QStringLiteral("-u"), seed, QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(status.exitCode, 0);
        QStringList listed;
        for (const QJsonValue &node :
             QJsonDocument::fromJson(status.out.toUtf8()).object().value(QStringLiteral("nodes")).toArray())
            listed << node.toObject().value(QStringLiteral("node")).toString();
        QCOMPARE(listed.size(), 3);
        QStringList byPort = listed;
        std::sort(byPort.begin(), byPort.end(), [](const QString &a, const QString &b) {
            return a.section(QLatin1Char(':'), -1).toInt() < b.section(QLatin1Char(':'), -1).toInt();
        });
        QCOMPARE(listed, byPort);
    }

    void verboseSaysWhatIsDoneAndNeverTheSecret()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(seeds, "SLUICE_TEST_CLUSTER_SEEDS", "Redis Cluster");
        const QString address = aclUrl.section(QLatin1String("://"), 1);
        const QStringList secretUrl{QStringLiteral("-u"), QStringLiteral("redis://admin:admin-secret@") + address};
        const Run quiet = sluicectl(secretUrl + QStringList{QStringLiteral("ping")});
        QCOMPARE(quiet.exitCode, 0);
        QVERIFY2(!quiet.err.contains(QLatin1String("sluice.")), qPrintable(quiet.err));
        const Run verbose = sluicectl(secretUrl + QStringList{QStringLiteral("-v"), QStringLiteral("ping")});
        QCOMPARE(verbose.exitCode, 0);
        for (const char *line :
             {"sluice.connection: connecting to redis://admin@", "handshake (AUTH as the user", ": ready"})
            QVERIFY2(verbose.err.contains(QLatin1String(line)), qPrintable(verbose.err));
        QVERIFY2(!(verbose.out + verbose.err).contains(QLatin1String("admin-secret")), qPrintable(verbose.err));
        // QT_LOGGING_RULES picks categories; -v is not needed.
        const QString seed = seeds.section(QLatin1Char(','), 0, 0);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("sluice.routing.debug=true"));
        const Run routing
            = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + seed, QStringLiteral("ping")}, env);
        QCOMPARE(routing.exitCode, 0);
        QVERIFY2(routing.err.contains(QLatin1String("sluice.routing: cluster map from ")), qPrintable(routing.err));
        QVERIFY2(!routing.err.contains(QLatin1String("sluice.connection")), qPrintable(routing.err));
        // Publishing says what each primary runs and what was loaded.
        const QString ns = QStringLiteral("verbose-%1").arg(QCoreApplication::applicationPid());
        const Run publish = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + seed, QStringLiteral("-v"),
                                       QStringLiteral("--namespace"), ns, QStringLiteral("publish"),
                                       QStringLiteral("--allow-empty")});
        QCOMPARE(publish.exitCode, 0);
        QCOMPARE(publish.err.count(QLatin1String(": FUNCTION LOAD REPLACE sluice_verbose_m")), 3);
        QVERIFY2(publish.err.contains(QLatin1String("sluice.publish: recording version 1 of sluice_verbose_m")),
                 qPrintable(publish.err));
    }

    void redisCliCredentialsAndTls()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(tlsUrl, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        SLUICE_REQUIRE_SERVICE(ca, "SLUICE_TEST_TLS_CA", "the test CA");
        // -a works and warns; REDISCLI_AUTH works silently; the password is never echoed.
        const Run flagged = sluicectl({QStringLiteral("-u"), aclUrl, QStringLiteral("--user"), QStringLiteral("admin"),
                                       QStringLiteral("-a"), QStringLiteral("admin-secret"), QStringLiteral("ping")});
        QCOMPARE(flagged.exitCode, 0);
        QVERIFY2(flagged.err.contains(QLatin1String("REDISCLI_AUTH")), qPrintable(flagged.err));
        QVERIFY(!(flagged.out + flagged.err).contains(QLatin1String("admin-secret")));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDISCLI_AUTH"), QStringLiteral("admin-secret"));
        const Run fromEnv = sluicectl(
            {QStringLiteral("-u"), aclUrl, QStringLiteral("--user"), QStringLiteral("admin"), QStringLiteral("ping")},
            env);
        QCOMPARE(fromEnv.exitCode, 0);
        QVERIFY2(fromEnv.err.isEmpty(), qPrintable(fromEnv.err));
        QVERIFY2(fromEnv.out.startsWith(QLatin1String("PONG from redis://admin@")), qPrintable(fromEnv.out));
        // TLS by flags on a redis:// address.
        const QString tlsAddress = tlsUrl.section(QLatin1String("://"), 1);
        const Run tls = sluicectl({QStringLiteral("-u"), QStringLiteral("redis://") + tlsAddress,
                                   QStringLiteral("--tls"), QStringLiteral("--cacert"), ca, QStringLiteral("ping")});
        QCOMPARE(tls.exitCode, 0);
        QVERIFY2(tls.out.startsWith(QLatin1String("PONG from rediss://")), qPrintable(tls.out));
        const Run untrusted
            = sluicectl({QStringLiteral("-u"), QStringLiteral("rediss://") + tlsAddress, QStringLiteral("ping")});
        QCOMPARE(untrusted.exitCode, 3);
        QVERIFY2(untrusted.err.contains(QLatin1String("certificate")), qPrintable(untrusted.err));
        const Run insecure = sluicectl({QStringLiteral("-u"), QStringLiteral("rediss://") + tlsAddress,
                                        QStringLiteral("--insecure"), QStringLiteral("ping")});
        QCOMPARE(insecure.exitCode, 0);
        QVERIFY2(insecure.err.contains(QLatin1String("not verified")), qPrintable(insecure.err));
    }

    void badConnectionFlags_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString s = QStringLiteral("-s"), h = QStringLiteral("-h"), p = QStringLiteral("-p"),
                      n = QStringLiteral("-n");
        QTest::newRow("port zero") << QStringList{p, QStringLiteral("0")} << QStringLiteral("-p must be a port");
        QTest::newRow("port text") << QStringList{p, QStringLiteral("six")} << QStringLiteral("-p must be a port");
        QTest::newRow("port too big") << QStringList{p, QStringLiteral("70000")} << QStringLiteral("-p must be a port");
        QTest::newRow("db negative") << QStringList{n, QStringLiteral("-1")} << QStringLiteral("-n must be a database");
        QTest::newRow("socket and host") << QStringList{s, QStringLiteral("/tmp/x"), h, QStringLiteral("a")}
                                         << QStringLiteral("cannot go with -h");
        QTest::newRow("empty host") << QStringList{h, QStringLiteral(" ")} << QStringLiteral("-h needs a host");
        QTest::newRow("tls file without tls")
            << QStringList{QStringLiteral("--cacert"), QStringLiteral("ca.crt")} << QStringLiteral("need --tls");
        QTest::newRow("cert without key")
            << QStringList{QStringLiteral("--tls"), QStringLiteral("--cert"), QStringLiteral("c.crt")}
            << QStringLiteral("go together");
        QTest::newRow("tls on socket") << QStringList{s, QStringLiteral("/tmp/x"), QStringLiteral("--tls")}
                                       << QStringLiteral("unix socket");
        QTest::newRow("sentinel and host")
            << QStringList{QStringLiteral("-u"), QStringLiteral("redis-sentinel://h:1#s"), h, QStringLiteral("a")}
            << QStringLiteral("names the sentinels");
        QTest::newRow("sentinel no service")
            << QStringList{QStringLiteral("-u"), QStringLiteral("redis-sentinel://h:1")}
            << QStringLiteral("names its service");
        QTest::newRow("malformed url") << QStringList{QStringLiteral("-u"), QStringLiteral("redis://h:99999")}
                                       << QStringLiteral("bad --url");
    }

    void badConnectionFlags()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Run run = sluicectl(args + QStringList{QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }

    void pingOverTlsAndUnixSocket()
    {
        SLUICE_REQUIRE_SERVICE(socket, "SLUICE_TEST_REDIS_SOCKET", "Redis standalone (unix socket)");
        const Run unixRun
            = sluicectl({QStringLiteral("-u"), QStringLiteral("unix://") + socket, QStringLiteral("ping")});
        QCOMPARE(unixRun.exitCode, 0);
        QVERIFY2(unixRun.out.startsWith(QLatin1String("PONG from unix://")), qPrintable(unixRun.out));
    }

    // .invalid never resolves (RFC 2606): "Host not found" where DNS answers, the connect timeout where
    // it does not; either way a clear failure naming the host: at once, or at the timeout and not before.
    void unknownHostFailsClearly()
    {
        const qint64 startMs = processStartMs();
        const Run run = sluicectl({QStringLiteral("-h"), QStringLiteral("no-such-host.invalid"),
                                   QStringLiteral("--timeout"), QStringLiteral("2000"), QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("cannot connect to redis://no-such-host.invalid:6379")),
                 qPrintable(run.err));
        if (run.err.contains(QLatin1String("Host not found")))
            QVERIFY2(run.elapsedMs <= startMs + sluice::test::timeoutSlackMs,
                     qPrintable(QStringLiteral("took %1 ms").arg(run.elapsedMs)));
        else
            SLUICE_VERIFY_TIMEOUT(run.elapsedMs, 2000, startMs);
        qInfo("unknown host: %s (%lld ms, of which %lld ms starting a process)", qPrintable(run.err.trimmed()),
              run.elapsedMs, startMs);
    }

    void refusedConnectionFailsFast()
    {
        const Run run
            = sluicectl({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("cannot connect to redis://127.0.0.1:1"))
                     && run.err.contains(QLatin1String("refused")),
                 qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.elapsedMs < 2000, qPrintable(QString::number(run.elapsedMs)));
    }

    void frozenServerGivesUpAtTimeout()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        server.freeze();
        const qint64 startMs = processStartMs();
        const Run run = sluicectl({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port()),
                                   QStringLiteral("--timeout"), QStringLiteral("500"), QStringLiteral("ping")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("no answer within 500 ms")), qPrintable(run.err));
        // At the timeout, not before (a timeout that fired at once would pass the message alone), and
        // not later than the timeout plus the time sluicectl takes to start and fail at once.
        SLUICE_VERIFY_TIMEOUT(run.elapsedMs, 500, startMs);
    }

    void aclUsersAndSecrets()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        QString withUser = url;
        withUser.replace(QLatin1String("redis://"), QLatin1String("redis://limiter:limiter-secret@"));
        const Run restricted = sluicectl({QStringLiteral("-u"), withUser, QStringLiteral("ping")});
        QCOMPARE(restricted.exitCode, 0);
        QVERIFY2(restricted.out.contains(QLatin1String("NOPERM")), qPrintable(restricted.out));
        QVERIFY2(!restricted.out.contains(QLatin1String("limiter-secret")), "the password must never be printed");

        QString wrong = url;
        wrong.replace(QLatin1String("redis://"), QLatin1String("redis://admin:not-the-password@"));
        const Run refused = sluicectl({QStringLiteral("-u"), wrong, QStringLiteral("ping")});
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains(QLatin1String("WRONGPASS")), qPrintable(refused.err));
        QVERIFY(!refused.err.contains(QLatin1String("not-the-password")));
    }

    void publishesThroughSentinel()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        SLUICE_REQUIRE_SERVICE(service, "SLUICE_TEST_SENTINEL_SERVICE", "the Sentinel service name");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(
            file, js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000}]}")));
        const QString ns = sluice::test::uniqueNamespace("s");
        const QStringList target{QStringLiteral("-u"), QStringLiteral("redis-sentinel://%1#%2").arg(sentinel, service),
                                 QStringLiteral("--namespace"), ns};
        QCOMPARE(sluicectl(target + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        const Run published = sluicectl(target + QStringList{QStringLiteral("publish"), QStringLiteral("--json")});
        QCOMPARE(published.exitCode, 0);
        const QJsonArray nodes
            = QJsonDocument::fromJson(published.out.toUtf8()).object().value(QStringLiteral("nodes")).toArray();
        QCOMPARE(nodes.size(), 1); // the primary; replicas get the library by replication
        QCOMPARE(nodes.first().toObject().value(QStringLiteral("state")).toString(), QStringLiteral("current"));
        QCOMPARE(sluicectl(target + QStringList{QStringLiteral("status")}).exitCode, 0);
        const Run decision = sluicectl(target
                                       + QStringList{QStringLiteral("acquire"), QStringLiteral("api"),
                                                     QStringLiteral("u1"), QStringLiteral("--json")});
        QCOMPARE(decision.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(decision.out.toUtf8()).object().value(QStringLiteral("remaining")).toInt(), 9);
    }

    // The settings' folder planted as a link to another folder, and the settings file planted as a FIFO: the
    // profiles are neither read nor written there (no hang on the FIFO, the link's target keeps its mode and
    // gets no file), and the command says why.
    void plantedSettingsAreNeitherFollowedNorRead()
    {
        QTemporaryDir config, elsewhere;
        QVERIFY(QFile::setPermissions(elsewhere.path(),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                                          | QFileDevice::ReadOther | QFileDevice::ExeOther));
        const QFileDevice::Permissions before = QFileInfo(elsewhere.path()).permissions();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
        const QString folder = config.filePath(QStringLiteral("Sluice"));
        QVERIFY(QFile::link(elsewhere.path(), folder));
        const test::CtlRun linked = test::sluicectl({QStringLiteral("profiles")}, env);
        QVERIFY2(linked.exitCode == 5
                     && linked.err.contains(QLatin1String("connection profiles are not read or saved")),
                 qPrintable(linked.err));
        QCOMPARE(QFileInfo(elsewhere.path()).permissions(), before);
        QVERIFY(QDir(elsewhere.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());

        QVERIFY(QFile::remove(folder));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(::mkfifo(QFile::encodeName(folder + QStringLiteral("/Sluice.conf")).constData(), 0600) == 0);
        const test::CtlRun fifo = test::sluicectl({QStringLiteral("profiles")}, env);
        QVERIFY2(fifo.exitCode == 5 && fifo.err.contains(QLatin1String("is not a regular file")), qPrintable(fifo.err));
        QVERIFY(fifo.elapsedMs < 10000);
    }

    // Profiles as the dashboard saves them: the password from the real keychain (else REDISCLI_AUTH),
    // namespace and flags from the profile, read-only and production honoured before any write.
    void profilesConnectWithTheirKeychainPassword()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(redisUrl, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        QTemporaryDir config;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
        env.remove(QStringLiteral("REDISCLI_AUTH"));
        const QString run = QUuid::createUuid().toString(QUuid::Id128).left(8);
        const auto makeProfile = [&](const QString &name, const QString &url) {
            model::ConnectionProfile profile;
            profile.name = name + QLatin1Char('-') + run;
            profile.options = test::optionsFor(url);
            profile.ns = QStringLiteral("p") + run;
            return profile;
        };
        model::ConnectionProfile admin = makeProfile(QStringLiteral("admin"), aclUrl);
        admin.options.user = QStringLiteral("admin");
        model::ConnectionProfile unsaved = admin;
        unsaved.name = QStringLiteral("unsaved-") + run; // nothing in the keychain for it
        model::ConnectionProfile audit = makeProfile(QStringLiteral("audit"), redisUrl);
        audit.readOnly = true;
        model::ConnectionProfile production = makeProfile(QStringLiteral("prod"), redisUrl);
        production.environment = model::ConnectionProfile::Environment::Production;
        {
            QSettings settings(config.filePath(QStringLiteral("Sluice/Sluice.conf")), QSettings::IniFormat);
            model::ProfileSettings profiles(&settings);
            for (const model::ConnectionProfile &profile : {admin, unsaved, audit, production})
                QCOMPARE(sluice::model::messageOf(profiles.save(profile, {})), QString());
        }
        model::KeychainSecretStore keychain;
        const auto written = test::awaitSecret([&](QObject *context, model::SecretStore::Callback done) {
            keychain.write(admin.passwordKey(), QStringLiteral("admin-secret"), context, done);
        });
        QVERIFY2(written.ok(), qPrintable(model::messageOf(written.failure)));
        const auto forget = qScopeGuard([&] {
            test::awaitSecret([&](QObject *context, model::SecretStore::Callback done) {
                keychain.remove(admin.passwordKey(), context, done);
            });
        });
        const auto as
            = [&](const model::ConnectionProfile &profile, QStringList args, const QProcessEnvironment &environment) {
            return sluicectl(QStringList{QStringLiteral("--profile"), profile.name} + args, environment);
        };

        const Run listed = sluicectl({QStringLiteral("profiles"), QStringLiteral("--json")}, env);
        QCOMPARE(listed.exitCode, 0);
        const QJsonArray profiles = QJsonDocument::fromJson(listed.out.toUtf8()).array();
        QCOMPARE(profiles.size(), 4);
        QVERIFY2(listed.out.contains(QLatin1String("\"production\"")) && !listed.out.contains(QLatin1String("secret")),
                 qPrintable(listed.out));

        const Run fromKeychain = as(admin, {QStringLiteral("-n"), QStringLiteral("3"), QStringLiteral("ping")}, env);
        QCOMPARE(fromKeychain.exitCode, 0);
        QVERIFY2(fromKeychain.out.startsWith(
                     QStringLiteral("PONG from redis://admin@%1/3:").arg(aclUrl.section(QLatin1String("//"), 1))),
                 qPrintable(fromKeychain.out + fromKeychain.err));
        QVERIFY(!fromKeychain.out.contains(QLatin1String("admin-secret"))
                && !fromKeychain.err.contains(QLatin1String("admin-secret")));

        const Run noPassword = as(unsaved, {QStringLiteral("ping")}, env);
        QCOMPARE(noPassword.exitCode, 3);
        QProcessEnvironment withAuth = env;
        withAuth.insert(QStringLiteral("REDISCLI_AUTH"), QStringLiteral("admin-secret"));
        QCOMPARE(as(unsaved, {QStringLiteral("ping")}, withAuth).exitCode, 0);

        // The profile's namespace is used: apply through one profile, read through another.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("p.json"));
        QVERIFY(writeFile(
            file, js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000}]}")));
        const Run unconfirmed = as(production, {QStringLiteral("apply"), file}, env);
        QCOMPARE(unconfirmed.exitCode, 8);
        QVERIFY2(unconfirmed.err.contains(QLatin1String("--yes")), qPrintable(unconfirmed.err));
        const auto storedCount = [&] {
            const Run listedPolicies = as(production, {QStringLiteral("policies"), QStringLiteral("--json")}, env);
            return listedPolicies.exitCode == 0 ? QJsonDocument::fromJson(listedPolicies.out.toUtf8()).array().size()
                                                : -1;
        };
        QCOMPARE(storedCount(), 0);
        QCOMPARE(as(production, {QStringLiteral("apply"), file, QStringLiteral("--dry-run")}, env).exitCode,
                 10); // changes pending
        QCOMPARE(storedCount(), 0);
        QCOMPARE(as(production, {QStringLiteral("apply"), file, QStringLiteral("--yes")}, env).exitCode, 0);
        QCOMPARE(storedCount(), 1);
        const Run readBack = sluicectl({QStringLiteral("--profile"), audit.name, QStringLiteral("--namespace"),
                                        production.ns, QStringLiteral("policies")},
                                       env);
        QCOMPARE(readBack.exitCode, 0);
        QVERIFY2(readBack.out.contains(QLatin1String("api")), qPrintable(readBack.out));

        const Run readOnly = sluicectl({QStringLiteral("--profile"), audit.name, QStringLiteral("--namespace"),
                                        production.ns, QStringLiteral("acquire"), QStringLiteral("api"),
                                        QStringLiteral("u1"), QStringLiteral("--yes")},
                                       env);
        QCOMPARE(readOnly.exitCode, 8);
        QVERIFY2(readOnly.err.contains(QLatin1String("read-only")), qPrintable(readOnly.err));
        // The lists: shown on a read-only profile, changed only where writes are allowed.
        const QStringList auditLists{QStringLiteral("--profile"), audit.name, QStringLiteral("--namespace"),
                                     production.ns, QStringLiteral("lists")};
        QCOMPARE(sluicectl(auditLists, env).exitCode, 0);
        const Run readOnlyLists = sluicectl(
            auditLists + QStringList{QStringLiteral("deny"), QStringLiteral("x"), QStringLiteral("--yes")}, env);
        QCOMPARE(readOnlyLists.exitCode, 8);
        QVERIFY2(readOnlyLists.err.contains(QLatin1String("read-only")), qPrintable(readOnlyLists.err));
        const Run productionLists
            = as(production, {QStringLiteral("lists"), QStringLiteral("deny"), QStringLiteral("x")}, env);
        QCOMPARE(productionLists.exitCode, 8);
        QVERIFY2(productionLists.err.contains(QLatin1String("--yes")), qPrintable(productionLists.err));

        // Test-fire writes: refused on a read-only profile. On production it asks for --yes only
        // when it would spend real subjects' buckets.
        const QStringList fireApi{QStringLiteral("fire"), QStringLiteral("api"),        QStringLiteral("--rate"),
                                  QStringLiteral("50"),   QStringLiteral("--duration"), QStringLiteral("0.2")};
        const Run readOnlyFire = sluicectl(
            QStringList{QStringLiteral("--profile"), audit.name, QStringLiteral("--namespace"), production.ns}
                + fireApi,
            env);
        QCOMPARE(readOnlyFire.exitCode, 8);
        QVERIFY2(readOnlyFire.err.contains(QLatin1String("read-only")), qPrintable(readOnlyFire.err));
        QCOMPARE(as(production, {QStringLiteral("publish"), QStringLiteral("--yes")}, env).exitCode, 0);
        const Run testKeys = as(production, fireApi, env);
        QVERIFY2(testKeys.exitCode == 0, qPrintable(testKeys.out + testKeys.err));
        const Run realKeys = as(production, fireApi + QStringList{QStringLiteral("--real-keys")}, env);
        QCOMPARE(realKeys.exitCode, 8);
        QVERIFY2(realKeys.err.contains(QLatin1String("--yes")), qPrintable(realKeys.err));
        QCOMPARE(
            as(production, fireApi + QStringList{QStringLiteral("--real-keys"), QStringLiteral("--yes")}, env).exitCode,
            0);

        const Run unknown
            = sluicectl({QStringLiteral("--profile"), QStringLiteral("nobody-") + run, QStringLiteral("ping")}, env);
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(QStringLiteral("nobody-") + run), qPrintable(unknown.err));
        const Run both = as(admin, {QStringLiteral("-u"), redisUrl, QStringLiteral("ping")}, env);
        QCOMPARE(both.exitCode, 2);
    }

    void applyPoliciesExportRoundTrip()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const QString ns = QStringLiteral("ctl-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        sluice::redis::RedisConnection redis(sluice::test::optionsFor(url));
        QVERIFY(sluice::test::openAndWait(redis));
        auto auditLength = [&] { return sluice::test::syncCommand(redis, {"XLEN", tag + ":audit"}).value.integer; };
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 100, 'window_ms': "
                             "60000, 'burst': 150},"
                             "{'name': 'login', 'algorithm': 'sliding_log', 'limit': 5, 'window_ms': 60000},"
                             "{'name': 'pages', 'algorithm': 'fixed_window', 'limit': 50, 'window_ms': 1000, "
                             "'window_start': 'first_call'}]}")));
        const QStringList base{QStringLiteral("-u"), url, QStringLiteral("--namespace"), ns};

        const Run dry = sluicectl(base + QStringList{QStringLiteral("apply"), file, QStringLiteral("--dry-run")});
        QCOMPARE(dry.exitCode, 10); // changes pending
        QVERIFY2(dry.out.contains(QLatin1String("create   api")) && dry.out.contains(QLatin1String("dry run")),
                 qPrintable(dry.out));
        QCOMPARE(sluice::test::syncCommand(redis, {"EXISTS", tag + ":policy:api", tag + ":policies"}).value.integer, 0);

        const Run applied = sluicectl(base + QStringList{QStringLiteral("apply"), file});
        QCOMPARE(applied.exitCode, 0);
        QVERIFY2(applied.out.contains(QLatin1String("applied: 3 created")), qPrintable(applied.out));
        QCOMPARE(auditLength(), 3);

        const Run again = sluicectl(base + QStringList{QStringLiteral("apply"), file});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains(QLatin1String("already up to date")), qPrintable(again.out));
        QCOMPARE(auditLength(), 3);

        const Run listed = sluicectl(base + QStringList{QStringLiteral("policies"), QStringLiteral("--json")});
        QCOMPARE(listed.exitCode, 0);
        const QJsonArray policies = QJsonDocument::fromJson(listed.out.toUtf8()).array();
        QCOMPARE(policies.size(), 3);
        QCOMPARE(policies.at(0)[QLatin1String("name")].toString(), QStringLiteral("api"));
        QCOMPARE(policies.at(0)[QLatin1String("burst")].toInt(), 150);
        QCOMPARE(policies.at(1)[QLatin1String("burst")].toInt(), 5);
        QCOMPARE(policies.at(1)[QLatin1String("version")].toInt(), 1);
        QCOMPARE(policies.at(2)[QLatin1String("window_start")].toString(), QStringLiteral("first_call"));

        // The table says where a fixed window starts, and "-" for the algorithms that have no window start.
        const Run table = sluicectl(base + QStringList{QStringLiteral("policies")});
        QCOMPARE(table.exitCode, 0);
        const QStringList rows = table.out.split(QLatin1Char('\n'));
        const auto column = [&rows](const QString &name, const QString &header) {
            const qsizetype at = rows.value(0).indexOf(header);
            for (const QString &row : rows) {
                if (row.startsWith(name + QLatin1Char(' ')))
                    return row.mid(at).section(QLatin1Char(' '), 0, 0);
            }
            return QString();
        };
        QCOMPARE(column(QStringLiteral("pages"), QStringLiteral("WINDOW_START")), QStringLiteral("first_call"));
        QCOMPARE(column(QStringLiteral("api"), QStringLiteral("WINDOW_START")), QStringLiteral("-"));

        const QString exported = dir.filePath(QStringLiteral("exported.json"));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("export"), exported}).exitCode, 0);
        const Run reapplied = sluicectl(base + QStringList{QStringLiteral("apply"), exported});
        QVERIFY2(reapplied.out.contains(QLatin1String("already up to date")), qPrintable(reapplied.out));

        QVERIFY(writeFile(
            file, js("{'policies': [{'name': 'api', 'algorithm': 'gcra', 'limit': 100, 'window_ms': 60000}]}")));
        const Run pruned = sluicectl(base + QStringList{QStringLiteral("apply"), file, QStringLiteral("--prune")});
        QCOMPARE(pruned.exitCode, 0);
        QVERIFY2(pruned.out.contains(QLatin1String("update   api"))
                     && pruned.out.contains(QLatin1String("delete   login")),
                 qPrintable(pruned.out));
        QCOMPARE(sluice::test::syncCommand(redis, {"SMEMBERS", tag + ":policies"}).value.elements.size(), 1);
        QCOMPARE(auditLength(), 6);
    }

    void historyAndRollback()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const QString ns = QStringLiteral("ctl-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        sluice::redis::RedisConnection redis(sluice::test::optionsFor(url));
        QVERIFY(sluice::test::openAndWait(redis));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        const QStringList base{QStringLiteral("-u"), url, QStringLiteral("--namespace"), ns};
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 100, 'window_ms': "
                             "60000, 'burst': 150}]}")));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 200, 'window_ms': "
                             "60000, 'burst': 150}]}")));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);

        const Run history = sluicectl(base + QStringList{QStringLiteral("history"), QStringLiteral("api")});
        QCOMPARE(history.exitCode, 0);
        QVERIFY2(history.out.contains(QStringLiteral("Limit 100 \u2192 200"))
                     && history.out.contains(QLatin1String("create")),
                 qPrintable(history.out));
        const Run json = sluicectl(base + QStringList{QStringLiteral("history"), QStringLiteral("--json")});
        const QJsonArray entries = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0)[QLatin1String("action")].toString(), QStringLiteral("update")); // newest first
        QCOMPARE(entries.at(0)[QLatin1String("old")][QLatin1String("limit")].toInt(), 100);
        QCOMPARE(entries.at(0)[QLatin1String("new")][QLatin1String("limit")].toInt(), 200);
        QVERIFY(entries.at(1)[QLatin1String("old")].isNull());

        const Run dry = sluicectl(base
                                  + QStringList{QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("1"),
                                                QStringLiteral("--dry-run")});
        QCOMPARE(dry.exitCode, 0);
        QVERIFY2(dry.out.contains(QLatin1String("limit         200 -> 100"))
                     && dry.out.contains(QLatin1String("dry run")),
                 qPrintable(dry.out));
        QCOMPARE(sluice::test::syncCommand(redis, {"HGET", tag + ":policy:api", "limit"}).value.bytes,
                 QByteArray("200"));

        const Run rolled
            = sluicectl(base + QStringList{QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("1")});
        QCOMPARE(rolled.exitCode, 0);
        QCOMPARE(sluice::test::syncCommand(redis, {"HGET", tag + ":policy:api", "limit"}).value.bytes,
                 QByteArray("100"));
        QCOMPARE(sluice::test::syncCommand(redis, {"HGET", tag + ":policy:api", "version"}).value.bytes,
                 QByteArray("3"));
        const Run after
            = sluicectl(base + QStringList{QStringLiteral("history"), QStringLiteral("api"), QStringLiteral("--json")});
        const QJsonObject rollback = QJsonDocument::fromJson(after.out.toUtf8()).array().at(0).toObject();
        QCOMPARE(rollback[QLatin1String("action")].toString(), QStringLiteral("rollback"));
        QCOMPARE(rollback[QLatin1String("rollback_to")].toInt(), 1);

        const Run again
            = sluicectl(base + QStringList{QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("1")});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.out.contains(QLatin1String("nothing to do")), qPrintable(again.out));
        const Run unknown
            = sluicectl(base + QStringList{QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("9")});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains(QLatin1String("no version 9 of policy \"api\"")), qPrintable(unknown.err));
        const Run notANumber = sluicectl(
            base + QStringList{QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("latest")});
        QCOMPARE(notANumber.exitCode, 2);
        QCOMPARE(sluice::test::syncCommand(redis, {"XLEN", tag + ":audit"}).value.integer, 3);
    }

    void badPolicyFileChangesNothing()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const QString ns = QStringLiteral("ctl-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("bad.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'ok', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000},"
                             "{'name': 'bad', 'algorithm': 'gcra', 'limit': 0, 'window_ms': 1000}]}")));
        const Run run
            = sluicectl({QStringLiteral("-u"), url, QStringLiteral("--namespace"), ns, QStringLiteral("apply"), file});
        QCOMPARE(run.exitCode, 5);
        QVERIFY2(run.err.contains(QLatin1String("policy \"bad\", field \"limit\""))
                     && run.err.contains(QLatin1String("nothing was applied")),
                 qPrintable(run.err));
        sluice::redis::RedisConnection redis(sluice::test::optionsFor(url));
        QVERIFY(sluice::test::openAndWait(redis));
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        QCOMPARE(sluice::test::syncCommand(redis, {"EXISTS", tag + ":policies", tag + ":policy:ok", tag + ":audit"})
                     .value.integer,
                 0);

        const Run missing = sluicectl(
            {QStringLiteral("-u"), url, QStringLiteral("apply"), dir.filePath(QStringLiteral("none.json"))});
        QCOMPARE(missing.exitCode, 5);
        QVERIFY(missing.err.contains(QLatin1String("cannot read")));
    }

    // What QJsonDocument would let through: a key given twice (the last would win), half a surrogate pair
    // (stored as '?'), bytes that are not UTF-8. Each is named and refused; the stored policy stays.
    void strictPolicyFilesChangeNothing_data()
    {
        QTest::addColumn<QByteArray>("fields");
        QTest::addColumn<QString>("expected");
        QTest::newRow("duplicate key") << js("'limit': 100, 'limit': 7") << "policy \"api\", field \"limit\": is given";
        QTest::newRow("duplicate key, escaped")
            << js("'limit': 100, '\\u006cimit': 7") << "policy \"api\", field \"limit\": is given";
        QTest::newRow("lone surrogate") << js("'limit': 100, 'description': 'x\\ud800'")
                                        << "policy \"api\", field \"description\": holds \\ud800";
        QTest::newRow("not UTF-8") << QByteArray("\"limit\": 100, \"description\": \"caf\xe9\"")
                                   << "policy \"api\", field \"description\": holds bytes that are not UTF-8";
    }

    void strictPolicyFilesChangeNothing()
    {
        QFETCH(QByteArray, fields);
        QFETCH(QString, expected);
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        const QString ns = QStringLiteral("ctl-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
        const QByteArray tag = '{' + ns.toUtf8() + '}';
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        const QStringList apply{QStringLiteral("-u"),    url, QStringLiteral("--namespace"), ns,
                                QStringLiteral("apply"), file};
        auto policyFile = [](const QByteArray &limitAndMore) {
            return js("{'policies': [{'name': 'api', 'algorithm': 'gcra', 'window_ms': 1000, ") + limitAndMore + "}]}";
        };
        QVERIFY(writeFile(file, policyFile(js("'limit': 100"))));
        QCOMPARE(sluicectl(apply).exitCode, 0);

        QVERIFY(writeFile(file, policyFile(fields)));
        const Run run = sluicectl(apply);
        QCOMPARE(run.exitCode, 5);
        QVERIFY2(run.err.contains(expected) && run.err.contains(QLatin1String("nothing was applied")),
                 qPrintable(run.err));
        sluice::redis::RedisConnection redis(sluice::test::optionsFor(url));
        QVERIFY(sluice::test::openAndWait(redis));
        QCOMPARE(sluice::test::syncCommand(redis, {"HGET", tag + ":policy:api", "limit"}).value.bytes,
                 QByteArray("100"));
        QCOMPARE(sluice::test::syncCommand(redis, {"HGET", tag + ":policy:api", "version"}).value.bytes,
                 QByteArray("1"));
        QCOMPARE(sluice::test::syncCommand(redis, {"XLEN", tag + ":audit"}).value.integer, 1);
    }

    void publishStatusAndAcquire()
    {
        // A private server: publishing replaces the server's function library.
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(server.port());
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', 'limit': 100, 'window_ms': "
                             "60000, 'burst': 2},"
                             "{'name': 'jobs', 'algorithm': 'concurrency', 'limit': 1, 'window_ms': 60000}]}")));
        const QStringList base{QStringLiteral("-u"), url};
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);

        const Run never = sluicectl(base + QStringList{QStringLiteral("status")});
        QCOMPARE(never.exitCode, 0); // no drift from what was never published
        QVERIFY2(never.out.contains(QLatin1String("never published")) && never.out.contains(QLatin1String("missing"))
                     && never.out.contains(QLatin1String("were never published: publish to serve them")),
                 qPrintable(never.out));
        QVERIFY2(never.err.contains(QLatin1String("persists nothing")), qPrintable(never.err));

        const Run dry = sluicectl(base + QStringList{QStringLiteral("publish"), QStringLiteral("--dry-run")});
        QCOMPARE(dry.exitCode, 0);
        // Field by field, in the form's words; --json adds the generated table.
        QVERIFY2(dry.out.contains(QLatin1String("the first in this namespace"))
                     && dry.out.contains(QLatin1String("create   jobs"))
                     && dry.out.contains(QRegularExpression(QStringLiteral("Algorithm +concurrency"))),
                 qPrintable(dry.out));
        const Run dryJson = sluicectl(
            base + QStringList{QStringLiteral("publish"), QStringLiteral("--dry-run"), QStringLiteral("--json")});
        QCOMPARE(dryJson.exitCode, 0);
        const QJsonObject preview = QJsonDocument::fromJson(dryJson.out.toUtf8()).object();
        QCOMPARE(preview[QLatin1String("published_version")].toInt(), 0);
        QVERIFY(preview[QLatin1String("policy_table")].toString().contains(
            QLatin1String("[\"jobs\"] = {algorithm = \"concurrency\"")));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("status")}).exitCode, 0);

        const Run published = sluicectl(base + QStringList{QStringLiteral("publish")});
        QCOMPARE(published.exitCode, 0);
        QVERIFY2(published.out.contains(QLatin1String("published version 1"))
                     && published.out.contains(QLatin1String("current")),
                 qPrintable(published.out));
        const Run status = sluicectl(base + QStringList{QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(status.exitCode, 0);
        const QJsonObject state = QJsonDocument::fromJson(status.out.toUtf8()).object();
        QCOMPARE(state[QLatin1String("version")].toInt(), 1);
        QCOMPARE(state[QLatin1String("drift")].toBool(), false);
        QCOMPARE(state[QLatin1String("nodes")].toArray().at(0)[QLatin1String("state")].toString(),
                 QStringLiteral("current"));

        const Run first
            = sluicectl(base + QStringList{QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice")});
        QCOMPARE(first.exitCode, 0);
        QVERIFY2(first.out.contains(QLatin1String("allowed          true"))
                     && first.out.contains(QLatin1String("remaining        1")),
                 qPrintable(first.out));
        const Run second
            = sluicectl(base
                        + QStringList{QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice"),
                                      QStringLiteral("--cost"), QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(second.exitCode, 11); // rejected
        const QJsonObject denied = QJsonDocument::fromJson(second.out.toUtf8()).object();
        QCOMPARE(denied[QLatin1String("allowed")].toBool(), false);
        QVERIFY(denied[QLatin1String("retry_after_ms")].toInt() > 0);
        // More than the burst can never pass: rejected, with no wait to show.
        const QStringList tooMuch{QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice"),
                                  QStringLiteral("--cost"), QStringLiteral("3")};
        const Run neverPasses = sluicectl(base + tooMuch);
        QCOMPARE(neverPasses.exitCode, 11);
        QVERIFY2(neverPasses.out.contains(QLatin1String("retry_after_ms   never (cost above what the policy admits")),
                 qPrintable(neverPasses.out));
        const Run neverJson = sluicectl(base + tooMuch + QStringList{QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(neverJson.out.toUtf8()).object()[QLatin1String("retry_after_ms")].toInt(), -2);
        const Run lease = sluicectl(base
                                    + QStringList{QStringLiteral("acquire"), QStringLiteral("jobs"),
                                                  QStringLiteral("batch"), QStringLiteral("--json")});
        QVERIFY2(QJsonDocument::fromJson(lease.out.toUtf8())
                     .object()[QLatin1String("lease")]
                     .toString()
                     .contains(QLatin1Char(':')),
                 qPrintable(lease.out));

        const Run badCost
            = sluicectl(base
                        + QStringList{QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice"),
                                      QStringLiteral("--cost"), QStringLiteral("-3")});
        QCOMPARE(badCost.exitCode, 1);
        QVERIFY2(badCost.err.contains(QLatin1String("ERR sluice: cost must be a whole number")),
                 qPrintable(badCost.err));
        const Run unknown
            = sluicectl(base + QStringList{QStringLiteral("acquire"), QStringLiteral("nope"), QStringLiteral("alice")});
        QCOMPARE(unknown.exitCode, 5); // invalid input, as the exit-code table says
        QVERIFY2(unknown.err.contains(QLatin1String("unknown policy")), qPrintable(unknown.err));

        // A restart without persistence loses the library and its record: status says what may have been lost,
        // and once the policies are applied again, publish restores the library.
        QVERIFY(server.restart());
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        const Run restarted = sluicectl(base + QStringList{QStringLiteral("status")});
        QCOMPARE(restarted.exitCode, 0);
        QVERIFY2(restarted.out.contains(QLatin1String("never published"))
                     && restarted.err.contains(QLatin1String("lost with the data")),
                 qPrintable(restarted.out + restarted.err));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("status")}).exitCode, 0);
    }

    void keysListBucketsAndResetKeyResetsOne()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(server.port());
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(
            file,
            js("{'policies': [{'name': 'login', 'algorithm': 'fixed_window', 'limit': 3, 'window_ms': 3600000}]}")));
        const QStringList base{QStringLiteral("-u"), url};
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        redis::RedisConnection traffic(server.options());
        QVERIFY(sluice::test::openAndWait(traffic));
        for (int i = 0; i < 5; ++i)
            sluice::test::syncCommand(traffic, {"FCALL", "sluice_acquire", "1", "sluice:login:{mallory}", "login"});
        for (int i = 0; i < 30; ++i)
            sluice::test::syncCommand(
                traffic,
                {"FCALL", "sluice_acquire", "1", "sluice:login:{user-" + QByteArray::number(i) + "}", "login"});

        const Run all = sluicectl(base + QStringList{QStringLiteral("keys"), QStringLiteral("--json")});
        QCOMPARE(all.exitCode, 0);
        const QStringList lines = all.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 31);
        const Run one
            = sluicectl(base
                        + QStringList{QStringLiteral("keys"), QStringLiteral("login"), QStringLiteral("--match"),
                                      QStringLiteral("mal*"), QStringLiteral("--json")});
        QCOMPARE(one.exitCode, 0);
        const QJsonObject mallory = QJsonDocument::fromJson(one.out.toUtf8()).object();
        QCOMPARE(mallory[QLatin1String("subject")].toString(), QStringLiteral("mallory"));
        QCOMPARE(mallory[QLatin1String("available")].toInt(), 0);
        QCOMPARE(mallory[QLatin1String("rejected")].toInt(), 2);
        const Run table = sluicectl(
            base + QStringList{QStringLiteral("keys"), QStringLiteral("--match"), QStringLiteral("mallory")});
        QVERIFY2(table.out.contains(QRegularExpression(QStringLiteral("mallory +login +fixed_window +0/3 "))),
                 qPrintable(table.out));
        const Run limited = sluicectl(base
                                      + QStringList{QStringLiteral("keys"), QStringLiteral("--limit"),
                                                    QStringLiteral("4"), QStringLiteral("--json")});
        QCOMPARE(limited.exitCode, 0);
        QCOMPARE(limited.out.count(QLatin1Char('\n')), 4);
        QVERIFY2(limited.err.contains(QLatin1String("stopped at --limit 4")), qPrintable(limited.err));

        const Run reset = sluicectl(
            base + QStringList{QStringLiteral("reset-key"), QStringLiteral("login"), QStringLiteral("mallory")});
        QCOMPARE(reset.exitCode, 0);
        QCOMPARE(sluice::test::syncCommand(traffic, {"EXISTS", "sluice:login:{mallory}"}).value.integer, 0);
        const Run history = sluicectl(
            base + QStringList{QStringLiteral("history"), QStringLiteral("login"), QStringLiteral("--json")});
        const QJsonObject entry = QJsonDocument::fromJson(history.out.toUtf8()).array().at(0).toObject();
        QCOMPARE(entry[QLatin1String("action")].toString(), QStringLiteral("reset"));
        QCOMPARE(entry[QLatin1String("subject")].toString(), QStringLiteral("mallory"));
        QCOMPARE(entry[QLatin1String("old")].toObject()[QLatin1String("rejected")].toInt(), 2);
        QVERIFY(entry[QLatin1String("who")].toString().contains(QLatin1String("(sluicectl)")));
    }

    // A spread policy: acquire picks one of the subject's buckets and says which (or takes the one named); keys
    // lists the subject once, its figures the buckets' sum; reset-key empties every bucket.
    void aSpreadPolicyIsCalledOnABucketAndListedAsOne()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'global', 'algorithm': 'fixed_window', 'limit': 8, "
                             "'window_ms': 3600000, 'spread': 4}]}")));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        int allowed = 0;
        QSet<QString> buckets;
        static const QRegularExpression picked(QStringLiteral("^bucket +(everyone#[0-3])$"),
                                               QRegularExpression::MultilineOption);
        static const QRegularExpression pickedOfHash(QStringLiteral("^bucket +everyone#3#[0-3]$"),
                                                     QRegularExpression::MultilineOption);
        for (int call = 0; call < 12; ++call) {
            const Run run = sluicectl(
                base + QStringList{QStringLiteral("acquire"), QStringLiteral("global"), QStringLiteral("everyone")});
            QVERIFY2(run.exitCode == 0 || run.exitCode == 11, qPrintable(run.err));
            allowed += run.exitCode == 0 ? 1 : 0;
            const QRegularExpressionMatch match = picked.match(run.out);
            QVERIFY2(match.hasMatch(), qPrintable(run.out));
            buckets << match.captured(1);
        }
        QVERIFY2(buckets.size() > 1, "12 random picks of 4 buckets all fell on one");
        // A subject of its own that ends in "#<digits>" is a subject, never read as a bucket number.
        const Run hashed = sluicectl(
            base + QStringList{QStringLiteral("acquire"), QStringLiteral("global"), QStringLiteral("everyone#3")});
        QCOMPARE(hashed.exitCode, 0);
        QVERIFY2(pickedOfHash.match(hashed.out).hasMatch(), qPrintable(hashed.out));

        const Run listed = sluicectl(base + QStringList{QStringLiteral("keys"), QStringLiteral("--json")});
        QCOMPARE(listed.exitCode, 0);
        QHash<QString, QJsonObject> rows;
        for (const QString &line : listed.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QJsonObject found = QJsonDocument::fromJson(line.toUtf8()).object();
            rows.insert(found[QLatin1String("subject")].toString(), found);
        }
        QCOMPARE(rows.keys().size(), 2);
        QCOMPARE(rows.value(QStringLiteral("everyone#3"))[QLatin1String("allowed")].toInt(), 1);
        const QJsonObject row = rows.value(QStringLiteral("everyone"));
        QCOMPARE(row[QLatin1String("capacity")].toInt(), 8);
        QCOMPARE(row[QLatin1String("allowed")].toInt(), allowed);
        QCOMPARE(row[QLatin1String("available")].toInt(), 8 - allowed);
        QCOMPARE(row[QLatin1String("bucket_keys")].toArray().size(), 4);
        const Run named2 = sluicectl(base
                                     + QStringList{QStringLiteral("keys"), QStringLiteral("global"),
                                                   QStringLiteral("--match"), QStringLiteral("everyone")});
        QVERIFY2(named2.out.contains(
                     QRegularExpression(QStringLiteral("everyone +global +fixed_window +%1/8 ").arg(8 - allowed))),
                 qPrintable(named2.out));

        QCOMPARE(
            sluicectl(base
                      + QStringList{QStringLiteral("reset-key"), QStringLiteral("global"), QStringLiteral("everyone")})
                .exitCode,
            0);
        // Every bucket of "everyone", and none of "everyone#3", which is another subject.
        const Run after = sluicectl(base + QStringList{QStringLiteral("keys"), QStringLiteral("--json")});
        QCOMPARE(after.out.count(QLatin1Char('\n')), 1);
        QVERIFY2(after.out.contains(QLatin1String("\"subject\":\"everyone#3\"")), qPrintable(after.out));
    }

    // The namespace's lists: changed, shown, audited, refused when wrong (nothing saved), and in force for
    // every policy once published, where a policy's longer pattern still wins.
    void namespaceListsAreSavedAuditedAndPublished()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'login', 'algorithm': 'token_bucket', 'limit': 2, 'window_ms': "
                             "3600000, 'overrides': {'scraper-vip': {'limit': 50}}}, {'name': 'search', 'algorithm': "
                             "'fixed_window', 'limit': 5, 'window_ms': 60000}]}")));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        const auto run = [&](const QStringList &args) { return sluicectl(base + args); };
        QCOMPARE(run({QStringLiteral("apply"), file}).exitCode, 0);
        const Run empty = run({QStringLiteral("lists")});
        QVERIFY2(empty.exitCode == 0 && empty.out.contains(QLatin1String("are empty")), qPrintable(empty.out));

        const Run denied = run(
            {QStringLiteral("lists"), QStringLiteral("deny"), QStringLiteral("scraper-*"), QStringLiteral("abuser-7")});
        QVERIFY2(denied.exitCode == 0, qPrintable(denied.err));
        QVERIFY2(denied.out.contains(QLatin1String("added    abuser-7: deny; scraper-*: deny")),
                 qPrintable(denied.out));
        QVERIFY2(denied.out.contains(QLatin1String("version 1")), qPrintable(denied.out));
        QCOMPARE(run({QStringLiteral("lists"), QStringLiteral("allow"), QStringLiteral("health")}).exitCode, 0);

        // Wrong input: a clear error, and the lists stay at version 2.
        const Run brace = run({QStringLiteral("lists"), QStringLiteral("deny"), QStringLiteral("a{b}")});
        QCOMPARE(brace.exitCode, 2);
        QVERIFY2(brace.err.contains(QLatin1String("is not a subject")), qPrintable(brace.err));
        const QString limits = dir.filePath(QStringLiteral("limits.csv"));
        QVERIFY(writeFile(limits, "pattern,list\nok-1,allow\npartner,1000\n"));
        const Run limitInList = run({QStringLiteral("lists"), QStringLiteral("import"), limits});
        QCOMPARE(limitInList.exitCode, 2);
        QVERIFY2(limitInList.err.contains(QLatin1String("line 3")), qPrintable(limitInList.err));
        QCOMPARE(run({QStringLiteral("lists"), QStringLiteral("bogus"), QStringLiteral("x")}).exitCode, 2);
        QCOMPARE(run({QStringLiteral("lists"), QStringLiteral("remove")}).exitCode, 2);
        const QJsonObject shown
            = QJsonDocument::fromJson(run({QStringLiteral("lists"), QStringLiteral("--json")}).out.toUtf8()).object();
        QCOMPARE(shown[QLatin1String("version")].toInteger(), 2);
        QCOMPARE(shown[QLatin1String("entries")].toObject(),
                 QJsonObject({{QStringLiteral("abuser-7"), QStringLiteral("deny")},
                              {QStringLiteral("health"), QStringLiteral("allow")},
                              {QStringLiteral("scraper-*"), QStringLiteral("deny")}}));

        const Run dryRun = run({QStringLiteral("publish"), QStringLiteral("--dry-run")});
        QVERIFY2(dryRun.out.contains(QLatin1String("lists    added abuser-7: deny; health: allow; scraper-*: deny")),
                 qPrintable(dryRun.out));
        QCOMPARE(run({QStringLiteral("publish")}).exitCode, 0);
        redis::RedisConnection traffic(server.options());
        QVERIFY(sluice::test::openAndWait(traffic));
        const auto acquire = [&](const QByteArray &policy, const QByteArray &subject) {
            return sluice::test::syncCommand(
                       traffic, {"FCALL", "sluice_acquire", "1", "sluice:" + policy + ":{" + subject + "}", policy})
                .value;
        };
        for (const QByteArray &policy : {QByteArray("login"), QByteArray("search")}) {
            QCOMPARE(acquire(policy, "abuser-7").elements.at(2).integer, -3);
            QCOMPARE(acquire(policy, "scraper-9").elements.at(2).integer, -3);
            QCOMPARE(acquire(policy, "health").elements.at(0).integer, 1);
        }
        // The policy's own exact subject is longer than the list's prefix: its override decides.
        const redis::RespValue vip = acquire("login", "scraper-vip");
        QCOMPARE(vip.elements.at(0).integer, 1);
        QCOMPARE(vip.elements.at(4).integer, 50);

        // Replaced from a CSV file (quoted patterns, a header); then removed one by one.
        const QString csv = dir.filePath(QStringLiteral("lists.csv"));
        QVERIFY(writeFile(csv, "subject,list\r\n\"comma,subject\",deny\r\nhealth,allow\r\n"));
        const Run imported = run({QStringLiteral("lists"), QStringLiteral("import"), csv});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QVERIFY2(imported.out.contains(QLatin1String("removed  abuser-7: deny; scraper-*: deny")),
                 qPrintable(imported.out));
        QVERIFY2(imported.out.contains(QLatin1String("added    comma,subject: deny")), qPrintable(imported.out));
        QCOMPARE(run({QStringLiteral("lists"), QStringLiteral("remove"), QStringLiteral("comma,subject")}).exitCode, 0);
        const Run unchanged = run({QStringLiteral("lists"), QStringLiteral("remove"), QStringLiteral("nobody")});
        QVERIFY2(unchanged.out.contains(QLatin1String("nothing to change")), qPrintable(unchanged.out));

        const QJsonArray history
            = QJsonDocument::fromJson(run({QStringLiteral("history"), QStringLiteral("--json")}).out.toUtf8()).array();
        QJsonArray listChanges;
        for (const QJsonValue &entry : history)
            if (entry[QLatin1String("action")].toString() == QLatin1String("lists"))
                listChanges.append(entry);
        QCOMPARE(listChanges.size(), 4);
        QCOMPARE(listChanges.at(0)[QLatin1String("version")].toInteger(), 4);
        QCOMPARE(listChanges.at(0)[QLatin1String("new")].toObject(),
                 QJsonObject({{QStringLiteral("health"), QStringLiteral("allow")}}));
        const Run table = run({QStringLiteral("history")});
        QVERIFY2(table.out.contains(QRegularExpression(QStringLiteral("\\(lists\\) +lists +4 +lists: removed "
                                                                      "comma,subject: deny"))),
                 qPrintable(table.out));
    }

    // A penalty and overrides as an operator meets them: the blocked subject and the override that sets a
    // limit are shown by `keys`, and reset-key lifts the block (audited with what it lifted).
    void penaltyIsShownAndResetKeyLiftsIt()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'login', 'algorithm': 'token_bucket', 'limit': 2, 'window_ms': "
                             "3600000, 'block_ms': 600000, 'overrides': {'partner-*': {'limit': 50}, 'ops': 'allow', "
                             "'abuser-7': 'deny'}}]}")));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        redis::RedisConnection traffic(server.options());
        QVERIFY(sluice::test::openAndWait(traffic));
        const auto acquire = [&](const QByteArray &subject) {
            return sluice::test::syncCommand(
                       traffic, {"FCALL", "sluice_acquire", "1", "sluice:login:{" + subject + "}", "login"})
                .value;
        };
        acquire("mallory");
        acquire("mallory");
        const redis::RespValue breach = acquire("mallory");
        QCOMPARE(breach.elements.at(0).integer, 0);
        QVERIFY(breach.elements.at(2).integer >= 600000); // the block's length, at least
        acquire("partner-9");
        QCOMPARE(acquire("abuser-7").elements.at(2).integer, -3);

        const Run blocked = sluicectl(base
                                      + QStringList{QStringLiteral("keys"), QStringLiteral("--match"),
                                                    QStringLiteral("mallory"), QStringLiteral("--json")});
        const QJsonObject mallory = QJsonDocument::fromJson(blocked.out.toUtf8()).object();
        QVERIFY2(mallory[QLatin1String("blocked_ms")].toInteger() > 590000, qPrintable(blocked.out));
        const Run table = sluicectl(base + QStringList{QStringLiteral("keys")});
        QVERIFY2(table.out.contains(QRegularExpression(QStringLiteral("mallory +login .* blocked 9 min 5\\d s"))),
                 qPrintable(table.out));
        QVERIFY2(table.out.contains(QRegularExpression(QStringLiteral("partner-9 +login +token_bucket +49/50 .* "
                                                                      "override partner-\\*\\n"))),
                 qPrintable(table.out));

        // What the library keeps beside a bucket goes with it: reservations not yet settled, a sliding window's debt.
        QVERIFY(sluice::test::syncCommand(traffic, {"ZADD", "sluice:login:{mallory}:reserved", "1", "0123:4"}).ok());
        QVERIFY(sluice::test::syncCommand(traffic, {"SET", "sluice:login:{mallory}:debt", "1:5"}).ok());
        QCOMPARE(
            sluicectl(base
                      + QStringList{QStringLiteral("reset-key"), QStringLiteral("login"), QStringLiteral("mallory")})
                .exitCode,
            0);
        QCOMPARE(sluice::test::syncCommand(traffic,
                                           {"EXISTS", "sluice:login:{mallory}:blocked",
                                            "sluice:login:{mallory}:reserved", "sluice:login:{mallory}:debt"})
                     .value.integer,
                 0);
        QCOMPARE(acquire("mallory").elements.at(0).integer, 1);
        // A policy nobody stored has no bucket: said so (exit 5), and nothing is reset or recorded.
        const qint64 entries = sluice::test::syncCommand(traffic, {"XLEN", "{sluice}:audit"}).value.integer;
        const Run unknown = sluicectl(
            base + QStringList{QStringLiteral("reset-key"), QStringLiteral("logins"), QStringLiteral("mallory")});
        QVERIFY2(unknown.exitCode == 5 && unknown.err.contains(QLatin1String("no policy named \"logins\" is stored"))
                     && unknown.out.isEmpty(),
                 qPrintable(unknown.err + unknown.out));
        QCOMPARE(sluice::test::syncCommand(traffic, {"XLEN", "{sluice}:audit"}).value.integer, entries);
        const Run history = sluicectl(
            base + QStringList{QStringLiteral("history"), QStringLiteral("login"), QStringLiteral("--json")});
        const QJsonObject reset = QJsonDocument::fromJson(history.out.toUtf8()).array().at(0).toObject();
        QCOMPARE(reset[QLatin1String("action")].toString(), QStringLiteral("reset"));
        QVERIFY(reset[QLatin1String("old")].toObject()[QLatin1String("blocked_ms")].toInteger() > 590000);
    }

    // The seed layouts' buckets, each made by its own script: listed by layout, as stored, or refilled
    // to now with the parameters their callers use; no other key is taken for one.
    void keysListTheSeedLayoutsBuckets()
    {
        using model::SeedLayout;
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        redis::RedisConnection redis(server.options());
        QVERIFY(sluice::test::openAndWait(redis));
        const auto eval = [&](SeedLayout layout, const QByteArray &id, const QByteArrayList &args) {
            const QByteArrayList keys = model::seedKeys(layout, id);
            return sluice::test::syncCommand(
                       redis,
                       QByteArrayList{"EVAL", model::seedScript(layout), QByteArray::number(keys.size())} + keys + args)
                .ok();
        };
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        const auto secondsAgo = [&](qint64 seconds) { return QByteArray::number(now - seconds); };
        // Gateway: 1 token a second up to 100, gw-a emptied 20 s ago; gw-b took one just now.
        QVERIFY(eval(SeedLayout::ScgTokenBucket, "gw-a", {"1", "100", secondsAgo(20), "100"}));
        QVERIFY(eval(SeedLayout::ScgTokenBucket, "gw-b", {"1", "100", secondsAgo(0), "1"}));
        // Counter: 10 a minute, two calls so far.
        QVERIFY(eval(SeedLayout::FixedWindowCounter, "api:seller1", {"10", "60"}));
        QVERIFY(eval(SeedLayout::FixedWindowCounter, "api:seller1", {"10", "60"}));
        // ms bucket: 1 token a second up to 100, emptied 20 s ago.
        QVERIFY(eval(SeedLayout::MsTokenBucket, "bucket:m", {"1", "100", "100", secondsAgo(20) + "000"}));
        // Interval bucket: 2 tokens every 60 s up to 10, quota:a emptied 130 s ago; quota:b took one just now.
        QVERIFY(eval(SeedLayout::IntervalTokenBucket, "quota:a", {"10", "2", "60", secondsAgo(130), "10"}));
        QVERIFY(eval(SeedLayout::IntervalTokenBucket, "quota:b", {"10", "2", "60", secondsAgo(0)}));
        QVERIFY(sluice::test::syncCommand(redis, {"SET", "note", "hello"}).ok());
        QVERIFY(sluice::test::syncCommand(redis, {"HSET", "hash", "f", "1"}).ok());

        const auto keys = [&](const QStringList &args) {
            return sluicectl(base + QStringList{QStringLiteral("keys"), QStringLiteral("--layout")} + args);
        };
        const auto json = [&](const QString &layout, QMap<QString, QJsonObject> *objects) {
            const Run run = keys({layout, QStringLiteral("--json")});
            *objects = byId(run.out);
            return run.exitCode == 0 && run.out.count(QLatin1Char('\n')) == objects->size();
        };
        QMap<QString, QJsonObject> found;
        // Without the parameters, the tokens as the scripts stored them, with their last refill.
        QVERIFY(json(QStringLiteral("scg"), &found));
        QCOMPARE(found.keys(), (QStringList{QStringLiteral("gw-a"), QStringLiteral("gw-b")}));
        QCOMPARE(found[QStringLiteral("gw-a")][QLatin1String("tokens")].toDouble(), 0.0);
        QCOMPARE(found[QStringLiteral("gw-a")][QLatin1String("refilled_to_now")].toBool(), false);
        QCOMPARE(found[QStringLiteral("gw-a")][QLatin1String("last_refill_ms")].toDouble(), (now - 20) * 1000.0);
        QVERIFY(!found[QStringLiteral("gw-a")].contains(QLatin1String("capacity")));
        QCOMPARE(found[QStringLiteral("gw-b")][QLatin1String("keys")].toArray().at(1).toString(),
                 QStringLiteral("request_rate_limiter.{gw-b}.timestamp"));
        QVERIFY(json(QStringLiteral("ms"), &found));
        QCOMPARE(found.keys(), QStringList{QStringLiteral("bucket:m")});
        QVERIFY(json(QStringLiteral("interval"), &found));
        QCOMPARE(found.keys(), (QStringList{QStringLiteral("quota:a"), QStringLiteral("quota:b")}));
        QCOMPARE(found[QStringLiteral("quota:a")][QLatin1String("tokens")].toDouble(), 0.0);
        // The counter is a bare key: the other layouts' keys, text and hashes are not counters.
        QVERIFY(json(QStringLiteral("counter"), &found));
        QCOMPARE(found.keys(), QStringList{QStringLiteral("api:seller1")});
        QCOMPARE(found[QStringLiteral("api:seller1")][QLatin1String("count")].toDouble(), 2.0);
        QCOMPARE(found[QStringLiteral("api:seller1")][QLatin1String("refilled_to_now")].toBool(), true);
        QVERIFY(found[QStringLiteral("api:seller1")][QLatin1String("full_in_ms")].toDouble() > 50000);

        // With the parameters, refilled to now as each script would on its next call (the bounds leave a
        // slow machine some seconds).
        QVERIFY(json(QStringLiteral("scg:1:100"), &found));
        const double gateway = found[QStringLiteral("gw-a")][QLatin1String("tokens")].toDouble();
        QVERIFY2(gateway >= 20 && gateway <= 40, qPrintable(QString::number(gateway))); // whole seconds
        QCOMPARE(found[QStringLiteral("gw-a")][QLatin1String("capacity")].toDouble(), 100.0);
        QVERIFY(json(QStringLiteral("ms:1:100"), &found));
        const double ms = found[QStringLiteral("bucket:m")][QLatin1String("tokens")].toDouble();
        QVERIFY2(ms > 19 && ms <= 40, qPrintable(QString::number(ms)));
        QVERIFY(json(QStringLiteral("counter:10:60"), &found));
        QCOMPARE(found[QStringLiteral("api:seller1")][QLatin1String("capacity")].toDouble(), 10.0);
        QVERIFY(json(QStringLiteral("interval:10:2:60"), &found));
        // Two whole batches in 130 s; the last refill on the minute's grid; full after three more.
        const QJsonObject quota = found[QStringLiteral("quota:a")];
        QCOMPARE(quota[QLatin1String("tokens")].toDouble(), 4.0);
        QCOMPARE(quota[QLatin1String("refilled_to_now")].toBool(), true);
        QCOMPARE(quota[QLatin1String("last_refill_ms")].toDouble(), (now - 10) * 1000.0);
        const double fullIn = quota[QLatin1String("full_in_ms")].toDouble();
        QVERIFY2(fullIn > 120000 && fullIn <= 170000, qPrintable(QString::number(fullIn)));
        QCOMPARE(found[QStringLiteral("quota:b")][QLatin1String("tokens")].toDouble(), 9.0);

        // As a table; --match on the key; --limit.
        const Run stored = keys({QStringLiteral("interval")});
        QCOMPARE(stored.exitCode, 0);
        QVERIFY2(
            stored.out.contains(QRegularExpression(QStringLiteral("ID +TOKENS LAST_REFILL +FULL_IN_MS +TTL_MS\n"))),
            qPrintable(stored.out));
        QVERIFY2(stored.out.contains(QRegularExpression(QStringLiteral("\nquota:a +0 \\(stored\\) "))),
                 qPrintable(stored.out));
        QVERIFY2(stored.err.contains(QLatin1String("(--layout interval:CAPACITY:ADD:INTERVAL_SECONDS)")),
                 qPrintable(stored.err));
        const Run refilled
            = keys({QStringLiteral("interval:10:2:60"), QStringLiteral("--match"), QStringLiteral("quota:a*")});
        QCOMPARE(refilled.exitCode, 0);
        QVERIFY2(refilled.out.contains(QRegularExpression(QStringLiteral("\nquota:a +4/10 "))),
                 qPrintable(refilled.out));
        QVERIFY2(!refilled.out.contains(QLatin1String("quota:b")), qPrintable(refilled.out));
        QVERIFY2(refilled.err.isEmpty(), qPrintable(refilled.err));
        const Run limited = keys(
            {QStringLiteral("interval"), QStringLiteral("--limit"), QStringLiteral("1"), QStringLiteral("--json")});
        QCOMPARE(limited.exitCode, 0);
        QCOMPARE(limited.out.count(QLatin1Char('\n')), 1);
        QVERIFY2(limited.err.contains(QLatin1String("stopped at --limit 1")), qPrintable(limited.err));

        // A gateway rate with decimals, as its script accepts it: half a token a second, emptied 20 s ago.
        QVERIFY(eval(SeedLayout::ScgTokenBucket, "gw-half", {"0.5", "100", secondsAgo(20), "100"}));
        QVERIFY(json(QStringLiteral("scg:0.5:100"), &found));
        const double half = found[QStringLiteral("gw-half")][QLatin1String("tokens")].toDouble();
        QVERIFY2(half >= 10 && half <= 20, qPrintable(QString::number(half)));
        const double halfFullIn = found[QStringLiteral("gw-half")][QLatin1String("full_in_ms")].toDouble();
        QVERIFY2(halfFullIn > 150000 && halfFullIn <= 181000, qPrintable(QString::number(halfFullIn)));
        // Buckets that hold epoch milliseconds (seed 000's) where the gateway keeps seconds: no refill from a
        // stamp 56,000 years ahead, but the reason.
        QVERIFY(sluice::test::syncCommand(redis, {"SET", "request_rate_limiter.{gw-ms}.tokens", "3"}).ok());
        QVERIFY(
            sluice::test::syncCommand(redis, {"SET", "request_rate_limiter.{gw-ms}.timestamp", secondsAgo(5) + "000"})
                .ok());
        QVERIFY(json(QStringLiteral("scg:1:100"), &found));
        const QJsonObject misread = found[QStringLiteral("gw-ms")];
        QCOMPARE(misread[QLatin1String("tokens")].toDouble(), 3.0);
        QCOMPARE(misread[QLatin1String("refilled_to_now")].toBool(), false);
        QVERIFY(!misread.contains(QLatin1String("last_refill_ms")) && !misread.contains(QLatin1String("full_in_ms")));
        QVERIFY2(misread[QLatin1String("problem")].toString().contains(QLatin1String("not this layout's clock")),
                 qPrintable(misread[QLatin1String("problem")].toString()));
        const Run warned = keys({QStringLiteral("scg:1:100"), QStringLiteral("--match"), QStringLiteral("gw-ms")});
        QVERIFY2(warned.out.contains(QRegularExpression(QStringLiteral(
                     "\ngw-ms +3 \\(stored\\) +- +- .*\n  warning: its timestamp \\d+ is not this layout's clock "
                     "\\(epoch seconds expected\\)"))),
                 qPrintable(warned.out));
        // Test fire keeps the gateway's rate whole, and says why and what to do instead.
        const Run fractionalFire = sluicectl(
            base
            + QStringList{QStringLiteral("fire"), QStringLiteral("scg_token_bucket:0.5:10"), QStringLiteral("--rate"),
                          QStringLiteral("10"), QStringLiteral("--duration"), QStringLiteral("1")});
        QCOMPARE(fractionalFire.exitCode, 2);
        QVERIFY2(fractionalFire.err.contains(QLatin1String("fire scg:1:CAPACITY with --cost 2")),
                 qPrintable(fractionalFire.err));

        // reset-key on a gateway's layout deletes that bucket's two keys and nothing else, and leaves no audit
        // log behind on the gateway's Redis; what is not a bucket of the layout is refused and kept.
        const auto resetSeed = [&](const QString &layout, const QString &id) {
            return sluicectl(base + QStringList{QStringLiteral("reset-key"), QStringLiteral("--layout"), layout, id});
        };
        const Run reset = resetSeed(QStringLiteral("scg"), QStringLiteral("gw-a"));
        QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
        QVERIFY2(reset.out.contains(QLatin1String("deleted request_rate_limiter.{gw-a}.tokens, "
                                                  "request_rate_limiter.{gw-a}.timestamp")),
                 qPrintable(reset.out));
        QCOMPARE(sluice::test::syncCommand(
                     redis, {"EXISTS", "request_rate_limiter.{gw-a}.tokens", "request_rate_limiter.{gw-a}.timestamp"})
                     .value.integer,
                 0);
        QCOMPARE(sluice::test::syncCommand(redis, {"EXISTS", "request_rate_limiter.{gw-b}.tokens"}).value.integer, 1);
        QCOMPARE(resetSeed(QStringLiteral("scg"), QStringLiteral("gw-a")).exitCode, 5); // gone already
        const Run notACounter = resetSeed(QStringLiteral("counter"), QStringLiteral("note"));
        QVERIFY2(notACounter.exitCode == 5 && notACounter.err.contains(QLatin1String("nothing was reset")),
                 qPrintable(notACounter.err));
        QCOMPARE(sluice::test::syncCommand(redis, {"GET", "note"}).value.bytes, QByteArray("hello"));
        QCOMPARE(sluice::test::syncCommand(redis, {"EXISTS", "{sluice}:audit"}).value.integer, 0);
        const Run unknownPolicy = sluicectl(
            base
            + QStringList{QStringLiteral("reset-key"), QStringLiteral("request_rate_limiter"), QStringLiteral("gw-b")});
        QVERIFY2(unknownPolicy.exitCode == 5 && unknownPolicy.err.contains(QLatin1String("reset-key --layout")),
                 qPrintable(unknownPolicy.err));
        QCOMPARE(sluice::test::syncCommand(redis, {"EXISTS", "{sluice}:audit"}).value.integer, 0);
    }

    // The test-fire engine from a terminal: the summary beside the model, JSON and CSV, two targets
    // side by side, seed scripts, bench's throughput; test-fire keys by default, real ones on request.
    void fireAndBenchReportWhatPassed()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(
            file,
            js("{'policies': [{'name': 'fw', 'algorithm': 'fixed_window', 'limit': 20, 'window_ms': 3600000},"
               " {'name': 'tb', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000, 'burst': 30}]}")));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        redis::RedisConnection redis(server.options());
        QVERIFY(sluice::test::openAndWait(redis));

        const QString csv = dir.filePath(QStringLiteral("run.csv"));
        const Run fire
            = sluicectl(base
                        + QStringList{QStringLiteral("fire"), QStringLiteral("fw"), QStringLiteral("--rate"),
                                      QStringLiteral("200"), QStringLiteral("--duration"), QStringLiteral("1"),
                                      QStringLiteral("--json"), QStringLiteral("--csv"), csv});
        QVERIFY2(fire.exitCode == 0, qPrintable(fire.err));
        const QJsonObject summary = QJsonDocument::fromJson(fire.out.toUtf8()).object();
        QCOMPARE(summary[QLatin1String("sent")].toInt(), 200);
        QCOMPARE(summary[QLatin1String("allowed")].toInt(), 20);
        QCOMPARE(summary[QLatin1String("rejected")].toInt(), 180);
        QCOMPARE(summary[QLatin1String("expected_allowed")].toInt(), 20);
        QVERIFY(qAbs(summary[QLatin1String("achieved_rate")].toDouble() - 200) < 10);
        for (const char *field : {"p50_ms", "p95_ms", "p99_ms"})
            QVERIFY2(summary[QLatin1String(field)].toDouble() > 0, field);
        QFile written(csv);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.readAll().contains(
            "time_ms,target,sent,allowed,rejected,errors,expected_allowed,expected_rejected\n0,fw,20,"));
        // The test-fire key space: the policy's real buckets and counters are untouched.
        QCOMPARE(sluice::test::syncCommand(redis, {"KEYS", "sluice:fw:*"}).value.elements.size(), 0);
        QCOMPARE(sluice::test::syncCommand(redis, {"KEYS", "sluice-fire:*:1:fw:{test-fire}"}).value.elements.size(), 1);

        // Side by side with a seed script, in a table; the ms bucket's skewed clocks.
        const Run sideBySide = sluicectl(
            base
            + QStringList{QStringLiteral("fire"), QStringLiteral("tb"), QStringLiteral("ms_token_bucket:10:30"),
                          QStringLiteral("--rate"), QStringLiteral("100"), QStringLiteral("--duration"),
                          QStringLiteral("1.5"), QStringLiteral("--concurrency"), QStringLiteral("2"),
                          QStringLiteral("--clock-skew"), QStringLiteral("1000")});
        QVERIFY2(sideBySide.exitCode == 0, qPrintable(sideBySide.err));
        QVERIFY2(sideBySide.out.contains(
                     QRegularExpression(QStringLiteral("\\ntb \\(token_bucket 10/second, burst 30\\) +150 +"))),
                 qPrintable(sideBySide.out));
        QVERIFY2(sideBySide.out.contains(QLatin1String("ms_token_bucket (10/s, capacity 30, clocks 1000 ms apart)")),
                 qPrintable(sideBySide.out));
        QVERIFY2(sideBySide.err.contains(
                     QRegularExpression(QStringLiteral("1\\.\\d s  tb: sent 1\\d\\d, allowed \\d+ \\(model \\d+\\)"))),
                 qPrintable(sideBySide.err)); // progress each second

        // The interval-refill bucket: whole batches on the callers' clock, as its model expects.
        const Run interval
            = sluicectl(base
                        + QStringList{QStringLiteral("fire"), QStringLiteral("interval_token_bucket:10:5:1"),
                                      QStringLiteral("--rate"), QStringLiteral("100"), QStringLiteral("--duration"),
                                      QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(interval.exitCode == 0, qPrintable(interval.err));
        const QJsonObject batches = QJsonDocument::fromJson(interval.out.toUtf8()).object();
        QCOMPARE(batches[QLatin1String("sent")].toInt(), 100);
        QVERIFY(batches[QLatin1String("rejected")].toInt() > 0);
        QCOMPARE(batches[QLatin1String("allowed")].toInt(), batches[QLatin1String("expected_allowed")].toInt());

        // Real keys: the subject's own bucket is spent.
        const Run real = sluicectl(
            base
            + QStringList{QStringLiteral("fire"), QStringLiteral("fw"), QStringLiteral("--rate"), QStringLiteral("100"),
                          QStringLiteral("--duration"), QStringLiteral("0.3"), QStringLiteral("--subject"),
                          QStringLiteral("carol"), QStringLiteral("--real-keys"), QStringLiteral("--json")});
        QCOMPARE(real.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(real.out.toUtf8()).object()[QLatin1String("allowed")].toInt(), 20);
        const redis::RedisReply peek
            = sluice::test::syncCommand(redis, {"FCALL_RO", "sluice_peek", "1", "sluice:fw:{carol}", "fw"});
        QCOMPARE(peek.value.elements.value(1).integer, 0);
        // Reserve then settle on real keys: each call reserves 2, then is settled with 0 to 4; the window holds
        // 20, so what the settlements charged is what the subject's bucket lost, as the model says.
        const Run reserved = sluicectl(
            base
            + QStringList{QStringLiteral("fire"), QStringLiteral("fw"), QStringLiteral("--rate"), QStringLiteral("100"),
                          QStringLiteral("--duration"), QStringLiteral("0.3"), QStringLiteral("--subject"),
                          QStringLiteral("dora"), QStringLiteral("--real-keys"), QStringLiteral("--cost"),
                          QStringLiteral("2"), QStringLiteral("--actual"), QStringLiteral("0-4"),
                          QStringLiteral("--settle-after"), QStringLiteral("20"), QStringLiteral("--json")});
        QVERIFY2(reserved.exitCode == 0, qPrintable(reserved.err));
        const QJsonObject settlements
            = QJsonDocument::fromJson(reserved.out.toUtf8()).object()[QLatin1String("settlements")].toObject();
        QVERIFY2(settlements[QLatin1String("settled")].toInt() > 0, qPrintable(reserved.out));
        QCOMPARE(settlements[QLatin1String("charged")].toInt(), settlements[QLatin1String("expected_charged")].toInt());
        const redis::RedisReply left
            = sluice::test::syncCommand(redis, {"FCALL_RO", "sluice_peek", "1", "sluice:fw:{dora}", "fw"});
        QCOMPARE(left.value.elements.value(1).integer, 20 - settlements[QLatin1String("charged")].toInt());

        const Run bench
            = sluicectl(base
                        + QStringList{QStringLiteral("bench"), QStringLiteral("tb"), QStringLiteral("--duration"),
                                      QStringLiteral("1"), QStringLiteral("--random"), QStringLiteral("1000"),
                                      QStringLiteral("--json")});
        QCOMPARE(bench.exitCode, 0);
        const QJsonObject figures = QJsonDocument::fromJson(bench.out.toUtf8()).object();
        QVERIFY2(figures[QLatin1String("ops_per_second")].toDouble() > 1000, qPrintable(bench.out));
        QCOMPARE(figures[QLatin1String("connections")].toInt(), 4);
        QVERIFY(figures[QLatin1String("command")].toString().startsWith(
            QLatin1String("FCALL sluice_check 1 sluice-fire:")));
        QCOMPARE(figures[QLatin1String("errors")].toInt(), 0);

        // Nothing to test: an unstored policy, an unpublished library.
        const Run unknown = sluicectl(base
                                      + QStringList{QStringLiteral("fire"), QStringLiteral("nope"),
                                                    QStringLiteral("--rate"), QStringLiteral("10")});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains(QLatin1String("no policy named \"nope\" is stored")), qPrintable(unknown.err));
        QVERIFY(sluice::test::syncCommand(redis, {"FUNCTION", "FLUSH"}).ok());
        const Run unpublished = sluicectl(base
                                          + QStringList{QStringLiteral("fire"), QStringLiteral("fw"),
                                                        QStringLiteral("--rate"), QStringLiteral("10")});
        QCOMPARE(unpublished.exitCode, 1);
        QVERIFY2(unpublished.err.contains(QLatin1String("fw: no limiter library (publish it first)")),
                 qPrintable(unpublished.err));
        QVERIFY2(unpublished.elapsedMs < 5000, "stopped at the first answer");
    }

    // Text a service or another writer planted, printed to the operator's terminal: a subject with an OSC
    // title change, a bell, a carriage return and a forged line; a description that clears the screen, forges a
    // line of the plan and reverses the text after it. No control reaches the terminal (each is shown \uXXXX),
    // no line is forged, and --json still carries each string exactly.
    void plantedTextNeverCommandsTheTerminal()
    {
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QStringList base{QStringLiteral("-u"), QStringLiteral("redis://127.0.0.1:%1").arg(server.port())};
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        const QString description = QStringLiteral("quota\u001b[2J\n  + create   everything  (approved)\u202egnp.exe");
        QVERIFY(writeFile(file,
                          js("{'policies': [{'name': 'api', 'algorithm': 'fixed_window', 'limit': 5, "
                             "'window_ms': 60000, 'description': 'quota\\u001b[2J\\n  + create   "
                             "everything  (approved)\\u202egnp.exe'}]}")));
        const Run plan = sluicectl(base + QStringList{QStringLiteral("apply"), QStringLiteral("--dry-run"), file});
        QCOMPARE(plan.exitCode, 10); // changes pending
        const auto noControls = [](const QString &out) {
            return std::none_of(out.begin(), out.end(), [](QChar c) {
                return c != QLatin1Char('\n') && model::isTerminalControl(c.unicode());
            });
        };
        QVERIFY2(noControls(plan.out) && noControls(plan.err), qPrintable(plan.out));
        QVERIFY2(!plan.out.contains(QRegularExpression(QStringLiteral("^\\s*\\+ create\\s+everything"),
                                                       QRegularExpression::MultilineOption)),
                 qPrintable(plan.out));
        QVERIFY2(plan.out.contains(QLatin1String("quota\\u001b[2J\\u000a  + create")), qPrintable(plan.out));
        QVERIFY2(plan.out.contains(QLatin1String("\\u202egnp.exe")), qPrintable(plan.out));
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);
        const Run policies = sluicectl(base + QStringList{QStringLiteral("policies"), QStringLiteral("--json")});
        QVERIFY(noControls(policies.out));
        QCOMPARE(QJsonDocument::fromJson(policies.out.toUtf8())
                     .array()
                     .at(0)
                     .toObject()[QLatin1String("description")]
                     .toString(),
                 description);

        redis::RedisConnection service(server.options());
        QVERIFY(sluice::test::openAndWait(service));
        const QByteArray subject = "mallory\x1b]0;you have been pwned\x07\r\nFORGED 5/5 fixed_window";
        QVERIFY(
            sluice::test::syncCommand(service, {"FCALL", "sluice_acquire", "1", "sluice:api:{" + subject + "}", "api"})
                .ok());
        const Run keys = sluicectl(base + QStringList{QStringLiteral("keys")});
        QCOMPARE(keys.exitCode, 0);
        QVERIFY2(noControls(keys.out), qPrintable(keys.out));
        QVERIFY2(!keys.out.contains(QRegularExpression(QStringLiteral("^FORGED"), QRegularExpression::MultilineOption)),
                 qPrintable(keys.out));
        const Run keysJson = sluicectl(base + QStringList{QStringLiteral("keys"), QStringLiteral("--json")});
        QVERIFY(noControls(keysJson.out));
        QVERIFY2(keysJson.out.contains(QLatin1String("\\u001b]0;you have been pwned\\u0007\\r\\n")),
                 qPrintable(keysJson.out));
    }

    void watchPrintsTheDecisionsOfEachSample()
    {
        // A private server: the watch must see only this test's library and traffic.
        sluice::test::RedisProcess server(sluice::test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(server.port());
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(
            writeFile(file,
                      js("{'policies': [{'name': 'api', 'algorithm': 'fixed_window', 'limit': 150, 'window_ms': 1000},"
                         "{'name': 'quiet', 'algorithm': 'token_bucket', 'limit': 5, 'window_ms': 1000}]}")));
        const QStringList base{QStringLiteral("-u"), url};
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("apply"), file}).exitCode, 0);
        QCOMPARE(sluicectl(base + QStringList{QStringLiteral("publish")}).exitCode, 0);

        QProcess watch;
        watch.start(QStringLiteral(SLUICECTL_BINARY),
                    base
                        + QStringList{QStringLiteral("watch"), QStringLiteral("api"), QStringLiteral("--interval"),
                                      QStringLiteral("500"), QStringLiteral("--duration"), QStringLiteral("4"),
                                      QStringLiteral("--json")});
        QVERIFY(watch.waitForStarted());

        // Traffic while it watches: each decision in a transaction with TIME, so the test knows
        // when Redis took it (to the microsecond) against the watch's sample boundaries.
        struct Decision {
            qint64 us;
            bool allowed;
        };
        QVector<Decision> decisions;
        redis::RedisConnection traffic(server.options());
        QVERIFY(sluice::test::openAndWait(traffic));
        QObject context;
        int sent = 0;
        QTimer pace;
        QObject::connect(&pace, &QTimer::timeout, &context, [&] {
            for (int i = 0; i < 2; ++i, ++sent) {
                const QByteArray key = "sluice:api:{s" + QByteArray::number(sent % 2) + "}";
                traffic.send({"MULTI"}, &context, [](const redis::RedisReply &) {});
                traffic.send({"FCALL", "sluice_acquire", "1", key, "api"}, &context, [](const redis::RedisReply &) {});
                traffic.send({"TIME"}, &context, [](const redis::RedisReply &) {});
                traffic.send({"EXEC"}, &context, [&](const redis::RedisReply &reply) {
                    const QVector<redis::RespValue> &results = reply.value.elements;
                    if (!reply.ok() || results.size() != 2)
                        return;
                    const QVector<redis::RespValue> &time = results.at(1).elements;
                    decisions.append({time.value(0).bytes.toLongLong() * 1000000 + time.value(1).bytes.toLongLong(),
                                      results.at(0).elements.value(0).integer == 1});
                });
            }
        });
        pace.start(5);
        QVERIFY(sluice::test::spinUntil([&] { return watch.state() == QProcess::NotRunning; }, 20000));
        pace.stop();
        QCOMPARE(watch.exitCode(), 0);
        QVERIFY2(watch.readAllStandardError().isEmpty(), "no warnings");

        const QList<QByteArray> lines = watch.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 8); // 4 s at 500 ms, one line per sample for the one policy asked for
        qint64 allowedSeen = 0;
        qint64 rejectedSeen = 0;
        for (const QByteArray &line : lines) {
            const QJsonObject sample = QJsonDocument::fromJson(line).object();
            QCOMPARE(sample[QLatin1String("policy")].toString(), QStringLiteral("api"));
            const qint64 end = qint64(sample[QLatin1String("time")].toDouble());
            const qint64 span = sample[QLatin1String("span_ms")].toInteger();
            QVERIFY2(span >= 450 && span <= 1000, line.constData());
            // Decisions strictly inside the sample's milliseconds are its own; one in the very
            // millisecond of a reading may fall on either side of it.
            qint64 allowedIn = 0, rejectedIn = 0, allowedEdge = 0, rejectedEdge = 0;
            for (const Decision &decision : decisions) {
                const qint64 ms = decision.us / 1000;
                if (ms > end - span && ms < end)
                    ++(decision.allowed ? allowedIn : rejectedIn);
                else if (ms == end - span || ms == end)
                    ++(decision.allowed ? allowedEdge : rejectedEdge);
            }
            const qint64 allowed = sample[QLatin1String("allowed")].toInteger();
            const qint64 rejected = sample[QLatin1String("rejected")].toInteger();
            QVERIFY2(allowed >= allowedIn && allowed <= allowedIn + allowedEdge,
                     qPrintable(QStringLiteral("%1: %2 allowed in, %3 at the edges")
                                    .arg(QString::fromUtf8(line))
                                    .arg(allowedIn)
                                    .arg(allowedEdge)));
            QVERIFY2(rejected >= rejectedIn && rejected <= rejectedIn + rejectedEdge,
                     qPrintable(QStringLiteral("%1: %2 rejected in, %3 at the edges")
                                    .arg(QString::fromUtf8(line))
                                    .arg(rejectedIn)
                                    .arg(rejectedEdge)));
            QVERIFY(qAbs(sample[QLatin1String("allowed_per_s")].toDouble() - allowed * 1000.0 / span) < 0.001);
            QVERIFY(qAbs(sample[QLatin1String("rejected_per_s")].toDouble() - rejected * 1000.0 / span) < 0.001);
            allowedSeen += allowed;
            rejectedSeen += rejected;
        }
        QVERIFY2(allowedSeen > 500 && rejectedSeen > 50,
                 qPrintable(QStringLiteral("%1 allowed, %2 rejected").arg(allowedSeen).arg(rejectedSeen)));

        // The table form ranks by rejections; a policy the library lacks is an error.
        const Run table
            = sluicectl(base
                        + QStringList{QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("250"),
                                      QStringLiteral("--duration"), QStringLiteral("0.25")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains(QLatin1String("POLICY")) && table.out.contains(QLatin1String("quiet")),
                 qPrintable(table.out));
        const Run unknown = sluicectl(base
                                      + QStringList{QStringLiteral("watch"), QStringLiteral("nope"),
                                                    QStringLiteral("--duration"), QStringLiteral("1")});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains(QLatin1String("the published library has no policy \"nope\"")),
                 qPrintable(unknown.err));
        // Nothing published, nothing to watch.
        QVERIFY(server.restart());
        const Run empty
            = sluicectl(base + QStringList{QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("1")});
        QCOMPARE(empty.exitCode, 1);
        QVERIFY2(empty.err.contains(QLatin1String("no limiter library")), qPrintable(empty.err));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList() << QStringLiteral("no command given");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("pong")} << QStringLiteral("unknown command");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate"), QStringLiteral("ping")}
                                        << QStringLiteral("frobnicate");
        QTest::newRow("bad url") << QStringList{QStringLiteral("--url"), QStringLiteral("http://x"),
                                                QStringLiteral("ping")}
                                 << QStringLiteral("unsupported scheme");
        // The namespace is a Cluster hash tag: refused as a profile's is, before any connection.
        const QString namespaceRule
            = QStringLiteral("bad --namespace: the namespace must be 1 to 64 letters, digits, '_', '.' or '-'");
        const QList<QPair<const char *, QString>> badNamespaces{{"empty", QString()},
                                                                {"braces", QStringLiteral("a{b}")},
                                                                {"closing brace", QStringLiteral("}")},
                                                                {"space", QStringLiteral("a b")},
                                                                {"tab", QStringLiteral("tab\t")},
                                                                {"trailing newline", QStringLiteral("line\n")},
                                                                {"control character", QStringLiteral("bell\a")},
                                                                {"65 characters", QString(65, QLatin1Char('n'))}};
        for (const auto &[name, ns] : badNamespaces)
            QTest::addRow("namespace: %s", name)
                << QStringList{QStringLiteral("--namespace"), ns, QStringLiteral("ping")} << namespaceRule;
        QTest::newRow("namespace: another's test-fire keys")
            << QStringList{QStringLiteral("--namespace"), QStringLiteral("tenA-fire"), QStringLiteral("ping")}
            << QStringLiteral("bad --namespace: a namespace may not end in \"-fire\": \"tenA-fire\" holds the "
                              "test-fire keys of namespace \"tenA\"");
        QTest::newRow("bad timeout") << QStringList{QStringLiteral("--timeout"), QStringLiteral("soon"),
                                                    QStringLiteral("ping")}
                                     << QStringLiteral("--timeout");
        QTest::newRow("extra argument") << QStringList{QStringLiteral("ping"), QStringLiteral("twice")}
                                        << QStringLiteral("usage: sluicectl ping");
        QTest::newRow("apply without file") << QStringList{QStringLiteral("apply")}
                                            << QStringLiteral("usage: sluicectl apply FILE (sluicectl help apply");
        QTest::newRow("missing value") << QStringList{QStringLiteral("ping"), QStringLiteral("--url")}
                                       << QStringLiteral("url");
        QTest::newRow("acquire without subject") << QStringList{QStringLiteral("acquire"), QStringLiteral("api")}
                                                 << QStringLiteral("usage: sluicectl acquire POLICY SUBJECT");
        QTest::newRow("watch interval too short")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("100")}
            << QStringLiteral("--interval must be a whole number of ms from 250 to 10000, not \"100\"");
        QTest::newRow("watch interval too long")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("10001")}
            << QStringLiteral("--interval must be");
        QTest::newRow("watch interval text")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("1s")}
            << QStringLiteral("not \"1s\"");
        QTest::newRow("watch duration 0")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("0")}
            << QStringLiteral("--duration must be a positive number of seconds, not \"0\"");
        QTest::newRow("watch duration negative")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("-5")}
            << QStringLiteral("--duration must be");
        QTest::newRow("watch duration nan")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("nan")}
            << QStringLiteral("--duration must be");
        QTest::newRow("keys limit zero") << QStringList{QStringLiteral("keys"), QStringLiteral("--limit"),
                                                        QStringLiteral("0")}
                                         << QStringLiteral("--limit must be");
        QTest::newRow("keys brace pattern")
            << QStringList{QStringLiteral("keys"), QStringLiteral("--match"), QStringLiteral("a{b")}
            << QStringLiteral("no { or }");
        QTest::newRow("keys bad policy") << QStringList{QStringLiteral("keys"), QStringLiteral("no such")}
                                         << QStringLiteral("not a policy name");
        QTest::newRow("keys unknown layout")
            << QStringList{QStringLiteral("keys"), QStringLiteral("--layout"), QStringLiteral("leaky")}
            << QStringLiteral("--layout must be one of scg, counter, ms, interval, optionally with the layout's "
                              "parameters (e.g. interval:CAPACITY:ADD:INTERVAL_SECONDS), not \"leaky\"");
        QTest::newRow("keys layout's parameters")
            << QStringList{QStringLiteral("keys"), QStringLiteral("--layout"), QStringLiteral("interval:10:2")}
            << QStringLiteral("--layout interval takes the parameters its callers use as "
                              "interval:CAPACITY:ADD:INTERVAL_SECONDS, whole numbers from 1 (got \"interval:10:2\")");
        QTest::newRow("keys layout and policy")
            << QStringList{QStringLiteral("keys"), QStringLiteral("api"), QStringLiteral("--layout"),
                           QStringLiteral("scg")}
            << QStringLiteral("--layout lists a seed layout's buckets: it takes no POLICY");
        const QString fire = QStringLiteral("fire"), bench = QStringLiteral("bench"), api = QStringLiteral("api");
        QTest::newRow("fire without rate") << QStringList{fire, api} << QStringLiteral("fire needs --rate");
        QTest::newRow("fire actual not a range")
            << QStringList{fire,
                           api,
                           QStringLiteral("--rate"),
                           QStringLiteral("5"),
                           QStringLiteral("--real-keys"),
                           QStringLiteral("--actual"),
                           QStringLiteral("1-2-3")}
            << QStringLiteral("--actual must be a whole number or a range MIN-MAX, not \"1-2-3\"");
        QTest::newRow("fire actual reversed")
            << QStringList{fire,
                           api,
                           QStringLiteral("--rate"),
                           QStringLiteral("5"),
                           QStringLiteral("--real-keys"),
                           QStringLiteral("--actual"),
                           QStringLiteral("9-2")}
            << QStringLiteral("the actual cost runs from 0 to 1000000000, its least no more than its most");
        QTest::newRow("fire reserve on test-fire keys") << QStringList{fire,
                                                                       api,
                                                                       QStringLiteral("--rate"),
                                                                       QStringLiteral("5"),
                                                                       QStringLiteral("--actual"),
                                                                       QStringLiteral("3")}
                                                        << QStringLiteral("reserve then settle fires at real keys");
        QTest::newRow("fire settle-after alone") << QStringList{fire,
                                                                api,
                                                                QStringLiteral("--rate"),
                                                                QStringLiteral("5"),
                                                                QStringLiteral("--settle-after"),
                                                                QStringLiteral("10")}
                                                 << QStringLiteral("--settle-after goes with --actual");
        QTest::newRow("fire rate text") << QStringList{fire, api, QStringLiteral("--rate"), QStringLiteral("fast")}
                                        << QStringLiteral("--rate must be a number");
        QTest::newRow("fire rate 0") << QStringList{fire, api, QStringLiteral("--rate"), QStringLiteral("0")}
                                     << QStringLiteral("the rate must be above 0");
        QTest::newRow("fire unknown shape") << QStringList{fire,
                                                           api,
                                                           QStringLiteral("--rate"),
                                                           QStringLiteral("5"),
                                                           QStringLiteral("--shape"),
                                                           QStringLiteral("zigzag")}
                                            << QStringLiteral("--shape must be constant, bursts, ramp or poisson");
        QTest::newRow("fire bursts without every") << QStringList{fire,
                                                                  api,
                                                                  QStringLiteral("--shape"),
                                                                  QStringLiteral("bursts"),
                                                                  QStringLiteral("--burst"),
                                                                  QStringLiteral("5")}
                                                   << QStringLiteral("--burst and --every go together");
        QTest::newRow("fire ramp without end") << QStringList{fire,
                                                              api,
                                                              QStringLiteral("--rate"),
                                                              QStringLiteral("5"),
                                                              QStringLiteral("--shape"),
                                                              QStringLiteral("ramp")}
                                               << QStringLiteral("--ramp-to goes with --shape ramp");
        QTest::newRow("fire two subject flags") << QStringList{fire,
                                                               api,
                                                               QStringLiteral("--rate"),
                                                               QStringLiteral("5"),
                                                               QStringLiteral("--subject"),
                                                               QStringLiteral("a"),
                                                               QStringLiteral("--random"),
                                                               QStringLiteral("5")}
                                                << QStringLiteral("give one of --subject, --subjects and --random");
        QTest::newRow("fire braced subject") << QStringList{fire,
                                                            api,
                                                            QStringLiteral("--rate"),
                                                            QStringLiteral("5"),
                                                            QStringLiteral("--subject"),
                                                            QStringLiteral("{a}")}
                                             << QStringLiteral("without braces");
        QTest::newRow("fire long duration")
            << QStringList{fire,
                           api,
                           QStringLiteral("--rate"),
                           QStringLiteral("5"),
                           QStringLiteral("--duration"),
                           QStringLiteral("7200")}
            << QStringLiteral("--duration must be a number of seconds from 0.1 to 3600");
        QTest::newRow("fire no connections") << QStringList{fire,
                                                            api,
                                                            QStringLiteral("--rate"),
                                                            QStringLiteral("5"),
                                                            QStringLiteral("--concurrency"),
                                                            QStringLiteral("0")}
                                             << QStringLiteral("use from 1 to 64 connections");
        QTest::newRow("fire with pipeline") << QStringList{fire,
                                                           api,
                                                           QStringLiteral("--rate"),
                                                           QStringLiteral("5"),
                                                           QStringLiteral("--pipeline"),
                                                           QStringLiteral("4")}
                                            << QStringLiteral("fire does not take --pipeline");
        QTest::newRow("fire three targets")
            << QStringList{fire, api, api, api, QStringLiteral("--rate"), QStringLiteral("5")}
            << QStringLiteral("usage: sluicectl fire TARGET [TARGET2] (sluicectl help fire says more)");
        QTest::newRow("fire bad seed script")
            << QStringList{fire, QStringLiteral("scg_token_bucket:0:5"), QStringLiteral("--rate"), QStringLiteral("5")}
            << QStringLiteral("a seed script is named as scg_token_bucket:RATE_PER_SECOND:CAPACITY");
        QTest::newRow("fire bad interval bucket")
            << QStringList{fire, QStringLiteral("interval_token_bucket:10:0:5"), QStringLiteral("--rate"),
                           QStringLiteral("5")}
            << QStringLiteral("a seed script is named as interval_token_bucket:CAPACITY:ADD:INTERVAL_SECONDS with "
                              "whole numbers from 1 (got \"interval_token_bucket:10:0:5\")");
        QTest::newRow("fire interval bucket cost") << QStringList{fire,
                                                                  QStringLiteral("interval_token_bucket:2:1:1"),
                                                                  QStringLiteral("--rate"),
                                                                  QStringLiteral("5"),
                                                                  QStringLiteral("--cost"),
                                                                  QStringLiteral("3")}
                                                   << QStringLiteral("cost 3 exceeds the capacity 2");
        QTest::newRow("fire skew on scg")
            << QStringList{fire,
                           QStringLiteral("scg_token_bucket:5:5"),
                           QStringLiteral("--rate"),
                           QStringLiteral("5"),
                           QStringLiteral("--clock-skew"),
                           QStringLiteral("100")}
            << QStringLiteral("--clock-skew is for ms_token_bucket and interval_token_bucket targets");
        QTest::newRow("fire bad target") << QStringList{fire, QStringLiteral("no such"), QStringLiteral("--rate"),
                                                        QStringLiteral("5")}
                                         << QStringLiteral("is neither a policy name nor a seed script");
        QTest::newRow("fire counter cost") << QStringList{fire,
                                                          QStringLiteral("fixed_window_counter:5:1"),
                                                          QStringLiteral("--rate"),
                                                          QStringLiteral("5"),
                                                          QStringLiteral("--cost"),
                                                          QStringLiteral("2")}
                                           << QStringLiteral("cost must be 1");
        QTest::newRow("bench with rate") << QStringList{bench, api, QStringLiteral("--rate"), QStringLiteral("5")}
                                         << QStringLiteral("bench does not take --rate");
        QTest::newRow("bench pipeline 0") << QStringList{bench, api, QStringLiteral("--pipeline"), QStringLiteral("0")}
                                          << QStringLiteral("the pipeline holds from 1 to 1000");
        QTest::newRow("reset-key without subject")
            << QStringList{QStringLiteral("reset-key"), QStringLiteral("login")}
            << QStringLiteral("reset-key takes a policy and a subject (or --layout and a bucket id)");
        QTest::newRow("reset-key bad subject")
            << QStringList{QStringLiteral("reset-key"), QStringLiteral("login"), QStringLiteral("{x}")}
            << QStringLiteral("has no { or }");
        // The library's bound on subjects, as the keys hold them.
        const QString longSubject(513, QLatin1Char('s'));
        QTest::newRow("reset-key subject too long")
            << QStringList{QStringLiteral("reset-key"), QStringLiteral("login"), longSubject}
            << QStringLiteral("a subject is 1 to 512 bytes");
        QTest::newRow("acquire subject too long")
            << QStringList{QStringLiteral("acquire"), QStringLiteral("login"), longSubject}
            << QStringLiteral("a subject is 1 to 512 bytes");
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = sluicectl(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
    }

    void eachCommandHasItsHelp()
    {
        const Run names = sluicectl({QStringLiteral("help"), QStringLiteral("--commands")});
        QCOMPARE(names.exitCode, 0);
        const QStringList commands = names.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(commands.size() >= 17, qPrintable(names.out));
        const Run top = sluicectl({QStringLiteral("--help")});
        for (const char *group : {"Policies:", "Deployment:", "Live:", "Test traffic:", "Connection:"})
            QVERIFY2(top.out.contains(QLatin1Char('\n') + QLatin1String(group) + QLatin1Char('\n')), group);
        for (const QString &command : commands) {
            QVERIFY2(top.out.contains(QStringLiteral("\n  %1 ").arg(command)), qPrintable(command));
            const Run page = sluicectl({QStringLiteral("help"), command});
            QCOMPARE(page.exitCode, 0);
            QVERIFY2(page.out.startsWith(QStringLiteral("Usage: sluicectl %1").arg(command)), qPrintable(page.out));
            QVERIFY2(page.out.contains(QLatin1String("\nExamples:\n  sluicectl ")), qPrintable(page.out));
            QCOMPARE(sluicectl({command, QStringLiteral("--help")}).out, page.out);
            // Every option the page names is one the command takes.
            const Run spellings = sluicectl({QStringLiteral("help"), QStringLiteral("--options"), command});
            QCOMPARE(spellings.exitCode, 0);
            const QStringList taken = spellings.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            QVERIFY(taken.contains(QLatin1String("--url")) && taken.contains(QLatin1String("--timeout")));
            const QStringList pageOptions = page.out.section(QLatin1String("\nOptions:\n"), 1)
                                                .section(QLatin1String("\n\n"), 0, 0)
                                                .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            for (const QString &line : pageOptions) {
                const QString option = line.trimmed().section(QLatin1Char(' '), 0, 0);
                if (option.startsWith(QLatin1String("--")))
                    QVERIFY2(taken.contains(option), qPrintable(command + QLatin1Char(' ') + option));
            }
        }
        // The top-level page lists no command's own options: those are on the command's page.
        QVERIFY(!top.out.contains(QLatin1String("--prune")) && !top.out.contains(QLatin1String("--layout")));
        const Run applyOptions
            = sluicectl({QStringLiteral("help"), QStringLiteral("--options"), QStringLiteral("apply")});
        QVERIFY(applyOptions.out.contains(QLatin1String("--prune\n")));
        QVERIFY(!applyOptions.out.contains(QLatin1String("--rate\n")));
        const Run misplaced = sluicectl({QStringLiteral("policies"), QStringLiteral("--prune")});
        QCOMPARE(misplaced.exitCode, 2);
        QVERIFY2(misplaced.err.contains(QLatin1String("policies does not take --prune")), qPrintable(misplaced.err));
        QCOMPARE(sluicectl({QStringLiteral("help"), QStringLiteral("pong")}).exitCode, 2);
    }

    void helpAndVersion()
    {
        const Run version = sluicectl({QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith(QLatin1String("sluicectl ")));
        const Run help = sluicectl({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains(QLatin1String("ping")));
        QVERIFY(help.out.contains(QLatin1String("Exit codes")));
    }
};

QTEST_GUILESS_MAIN(TestSluicectl)
#include "tst_sluicectl.moc"
