// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl metrics serve as Prometheus sees it: a real Debian prometheus scrapes the exporter on loopback
// while traffic runs, and its HTTP API must return exactly the decisions the test sent, the limits and the
// library state, with counters that do not go back when the library is reloaded. On a private Cluster the
// sums over the primaries are exact, and a frozen primary is an error series and a gap, never zero traffic.

#include "model/monitor/policy_rate_sampler.h"
#include "redis/redis_connection.h"
#include "support/limiter_support.h"
#include "support/owned_process.h"
#include "support/private_cluster.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include <optional>

using namespace sluice;
using model::Algorithm;

namespace {

quint16 freePort()
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

QByteArray httpGet(const QUrl &url, int *status = nullptr)
{
    QNetworkAccessManager network;
    QNetworkRequest request(url);
    request.setTransferTimeout(10000);
    QNetworkReply *reply = network.get(request);
    test::spinUntil([reply] { return reply->isFinished(); }, 15000);
    if (status)
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->isFinished() ? reply->readAll() : QByteArray();
    reply->deleteLater();
    return body;
}

// A GET over TLS that trusts only `ca` (the exporter's own certificate), with basic credentials when given.
QByteArray httpsGet(const QUrl &url, const QSslCertificate &ca, const QByteArray &userAndPassword, int *status)
{
    QNetworkAccessManager network;
    QNetworkRequest request(url);
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates({ca});
    request.setSslConfiguration(tls);
    request.setTransferTimeout(10000);
    if (!userAndPassword.isEmpty())
        request.setRawHeader("Authorization", "Basic " + userAndPassword.toBase64());
    QNetworkReply *reply = network.get(request);
    test::spinUntil([reply] { return reply->isFinished(); }, 15000);
    *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    return body;
}

// A self-signed certificate for 127.0.0.1 and its key (openssl), a bcrypt hash of `password` (Python's
// crypt, as htpasswd -B would write it) and a web config naming them, in `dir`; the config's path.
QString makeWebConfig(const QTemporaryDir &dir, const QByteArray &password)
{
    const int made = QProcess::execute(
        QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
         QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes"),
         QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=sluice-test"),
         QStringLiteral("-addext"), QStringLiteral("subjectAltName=IP:127.0.0.1"), QStringLiteral("-keyout"),
         dir.filePath(QStringLiteral("server.key")), QStringLiteral("-out"),
         dir.filePath(QStringLiteral("server.crt"))});
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-W"), QStringLiteral("ignore"), QStringLiteral("-c"),
                  QStringLiteral("import crypt, sys; print(crypt.crypt(sys.argv[1], "
                                 "crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 5)))"),
                  QString::fromUtf8(password)});
    python.waitForFinished(10000);
    const QByteArray hash = python.readAllStandardOutput().trimmed();
    if (made != 0 || !hash.startsWith("$2"))
        return {};
    const QString path = dir.filePath(QStringLiteral("web.yml"));
    // Relative file names are read from the config's folder.
    return test::writeFile(path,
                           "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                           "basic_auth_users:\n  prometheus: "
                               + hash + "\n")
        ? path
        : QString();
}

// `sluicectl metrics serve` on a free port, stopped with this object.
class Exporter {
public:
    bool start(const redis::ConnectionOptions &target, const QString &ns, const QStringList &more = {})
    {
        test::endWithThisProcess(m_process);
        m_process.start(QStringLiteral(SLUICECTL_BINARY),
                        QStringList{QStringLiteral("-p"), QString::number(target.port), QStringLiteral("--namespace"),
                                    ns, QStringLiteral("--timeout"), QStringLiteral("1000"), QStringLiteral("metrics"),
                                    QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}
                            + more);
        const QRegularExpression serving(QStringLiteral("serving https?://127\\.0\\.0\\.1:(\\d+)/metrics"));
        test::spinUntil([&] {
            m_log += m_process.readAllStandardError();
            return serving.match(QString::fromUtf8(m_log)).hasMatch() || m_process.state() == QProcess::NotRunning;
        });
        m_port = quint16(serving.match(QString::fromUtf8(m_log)).captured(1).toUInt());
        return m_port != 0;
    }
    ~Exporter()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    quint16 port() const { return m_port; }
    QString log() { return QString::fromUtf8(m_log += m_process.readAllStandardError()); }
    QByteArray scrape() const { return httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(m_port))); }

private:
    QProcess m_process;
    QByteArray m_log;
    quint16 m_port = 0;
};

// Debian's prometheus scraping one target every second, with its storage in a temporary folder.
class Prometheus {
public:
    // `scrapeSettings`: more lines of the job (scheme, tls_config, basic_auth), indented four spaces.
    bool start(quint16 targetPort, const QString &scrapeSettings = {})
    {
        m_port = freePort();
        const QString config = m_dir.filePath(QStringLiteral("prometheus.yml"));
        const QByteArray yaml = QStringLiteral("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                               "scrape_configs:\n  - job_name: sluice\n%2    static_configs:\n"
                                               "      - targets: ['127.0.0.1:%1']\n")
                                    .arg(targetPort)
                                    .arg(scrapeSettings)
                                    .toUtf8();
        if (!test::writeFile(config, yaml))
            return false;
        test::endWithThisProcess(m_process);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(QStringLiteral("prometheus"),
                        {QStringLiteral("--config.file=") + config,
                         QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
                         QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port)});
        return test::spinUntil(
                   [this] {
            int status = 0;
            httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/-/ready").arg(m_port)), &status);
            return status == 200 || m_process.state() == QProcess::NotRunning;
                   },
                   30000)
            && m_process.state() == QProcess::Running;
    }
    ~Prometheus()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    QString log() { return QString::fromUtf8(m_process.readAll().right(2000)); }

    // The value of an instant query that returns one sample, or nothing.
    std::optional<double> value(const QString &promql) const
    {
        QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(m_port));
        url.setQuery(QUrlQuery{{QStringLiteral("query"), promql}});
        const QJsonArray result = QJsonDocument::fromJson(httpGet(url))
                                      .object()[QLatin1String("data")]
                                      .toObject()[QLatin1String("result")]
                                      .toArray();
        if (result.size() != 1)
            return std::nullopt;
        return result.first().toObject()[QLatin1String("value")].toArray().at(1).toString().toDouble();
    }
    // Waits until the query returns `expected` (Prometheus scrapes every second); the last value seen.
    std::optional<double> await(const QString &promql, double expected) const
    {
        std::optional<double> seen;
        test::spinUntil(
            [&] {
            seen = value(promql);
            return seen == expected;
            },
            30000);
        return seen;
    }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
};

QString series(const char *name, const QString &ns, const QString &labels = {})
{
    return QStringLiteral("%1{namespace=\"%2\"%3}").arg(QLatin1String(name), ns, labels);
}

QString policySeries(const char *name, const QString &ns, const char *policy)
{
    return series(name, ns, QStringLiteral(",policy=\"%1\"").arg(QLatin1String(policy)));
}

// The value of one series in an exposition, or nothing when the exposition lacks it.
std::optional<double> exposed(const QByteArray &exposition, const QString &seriesName)
{
    for (const QByteArray &line : exposition.split('\n'))
        if (line.startsWith(seriesName.toUtf8() + ' '))
            return line.mid(seriesName.toUtf8().size() + 1).toDouble();
    return std::nullopt;
}

} // namespace

class TestMetricsExporter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void prometheusQueriesReturnExactTotals()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const redis::ConnectionOptions target = test::optionsFor(url);
        redis::RedisClient client(target);
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("prom");
        const auto quota = test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 10, 3600000);
        auto trial = test::makePolicy(QStringLiteral("trial"), Algorithm::FixedWindow, 5, 3600000, 0, true);
        trial.windowStart = model::WindowStart::FirstCall;
        QString error = test::storeAndPublish(client, ns, {quota, trial});
        QVERIFY2(error.isEmpty(), qPrintable(error));

        Exporter exporter;
        QVERIFY2(exporter.start(target, ns), qPrintable(exporter.log()));
        Prometheus prometheus;
        QVERIFY2(prometheus.start(exporter.port()), qPrintable(prometheus.log()));

        // 25 calls at one subject of a 10-an-hour window: 10 pass, 15 are rejected. The shadow policy
        // lets its 8 through and records 3 it would have rejected.
        const test::Fired quotaFired
            = test::fireAcquires(client, ns, QStringLiteral("quota"), 25, [](int) { return QByteArray("alice"); });
        QCOMPARE(quotaFired.allowed, 10u);
        QCOMPARE(quotaFired.rejected, 15u);
        const test::Fired trialFired
            = test::fireAcquires(client, ns, QStringLiteral("trial"), 8, [](int) { return QByteArray("bob"); });
        QCOMPARE(trialFired.allowed, 8u);

        const QString quotaAllowed = policySeries("sluice_allowed_total", ns, "quota");
        QCOMPARE(prometheus.await(quotaAllowed, 10), 10.0);
        QCOMPARE(prometheus.await(policySeries("sluice_rejected_total", ns, "quota"), 15), 15.0);
        QCOMPARE(prometheus.await(policySeries("sluice_shadow_rejected_total", ns, "quota"), 0), 0.0);
        QCOMPARE(prometheus.await(policySeries("sluice_allowed_total", ns, "trial"), 5), 5.0);
        QCOMPARE(prometheus.await(policySeries("sluice_shadow_rejected_total", ns, "trial"), 3), 3.0);
        QCOMPARE(prometheus.await(policySeries("sluice_rejected_total", ns, "trial"), 0), 0.0);
        QCOMPARE(prometheus.value(policySeries("sluice_policy_limit", ns, "quota")), 10.0);
        QCOMPARE(prometheus.value(policySeries("sluice_policy_window_seconds", ns, "quota")), 3600.0);
        QCOMPARE(prometheus.value(policySeries("sluice_policy_shadow", ns, "trial")), 1.0);
        QCOMPARE(prometheus.value(policySeries("sluice_policy_window_from_first_call", ns, "trial")), 1.0);
        QCOMPARE(prometheus.value(policySeries("sluice_policy_window_from_first_call", ns, "quota")), 0.0);
        const QString primary = QStringLiteral(",primary=\"127.0.0.1:%1\"").arg(target.port);
        QCOMPARE(prometheus.value(series("sluice_library_state", ns, primary + QStringLiteral(",state=\"current\""))),
                 1.0);
        QCOMPARE(prometheus.value(series("sluice_library_state", ns, primary + QStringLiteral(",state=\"stale\""))),
                 0.0);
        QCOMPARE(prometheus.value(series("sluice_library_version", ns, primary)), 1.0);
        QCOMPARE(prometheus.value(series("sluice_up", ns)), 1.0);

        // A republish reloads the library (FUNCTION LOAD REPLACE): its own counts start again from zero.
        auto described = quota;
        described.description = QStringLiteral("now with a description");
        error = test::storeAndPublish(client, ns, {described, trial});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const test::Fired after
            = test::fireAcquires(client, ns, QStringLiteral("quota"), 7, [](int) { return QByteArray("carol"); });
        QCOMPARE(after.allowed, 7u);
        const redis::RedisReply stats
            = test::syncCommand(client, {"FCALL_RO", test::ownerOf(client, ns).function("stats"), "0", "0"});
        QVERIFY2(stats.ok(), qPrintable(stats.errorText()));
        QCOMPARE(stats.value.elements.at(3).integer, 7); // the library's own "quota" total: reset by the reload
        QCOMPARE(prometheus.await(quotaAllowed, 17), 17.0);
        QCOMPARE(prometheus.value(policySeries("sluice_rejected_total", ns, "quota")), 15.0);
        QCOMPARE(prometheus.value(QStringLiteral("resets(%1[5m])").arg(quotaAllowed)), 0.0);
        QCOMPARE(prometheus.await(series("sluice_library_version", ns, primary), 2), 2.0);
    }

    // Two dashboards' samplers and an exporter scraped by Prometheus, all reading one library at once while
    // traffic runs: the library counts without the clock and each reader differences its own readings, so
    // none disturbs another, every sampler's points add up to exactly the decisions sent (and each point's
    // rate is its count over its span), and Prometheus's totals are exact.
    void twoDashboardsAndAnExporterReadAtOnce()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const redis::ConnectionOptions target = test::optionsFor(url);
        redis::RedisClient client(target);
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("promd");
        auto window = test::makePolicy(QStringLiteral("window"), Algorithm::FixedWindow, 20, 3600000);
        window.windowStart = model::WindowStart::FirstCall;
        QString error = test::storeAndPublish(
            client, ns, {window, test::makePolicy(QStringLiteral("bucket"), Algorithm::TokenBucket, 5, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        Exporter exporter;
        QVERIFY2(exporter.start(target, ns), qPrintable(exporter.log()));
        Prometheus prometheus;
        QVERIFY2(prometheus.start(exporter.port()), qPrintable(prometheus.log()));

        std::vector<std::unique_ptr<redis::RedisClient>> dashboards;
        std::vector<std::unique_ptr<model::PolicyRateSampler>> samplers;
        for (int i = 0; i < 2; ++i) {
            dashboards.push_back(std::make_unique<redis::RedisClient>(target));
            QVERIFY(test::openAndWait(*dashboards.back()));
            samplers.push_back(
                std::make_unique<model::PolicyRateSampler>(dashboards.back().get(), test::ownerOf(client, ns)));
            samplers.back()->setIntervalMs(250 + 70 * i); // out of step with each other
            samplers.back()->start();
        }
        QTRY_VERIFY_WITH_TIMEOUT(samplers[0]->readings() > 0 && samplers[1]->readings() > 0, 10000);
        std::map<QString, test::Fired> sent;
        for (int round = 0; round < 8; ++round) {
            for (const char *policy : {"window", "bucket"}) {
                const test::Fired fired
                    = test::fireAcquires(client, ns, QString::fromLatin1(policy), 30 + 7 * round, [round](int call) {
                          return QByteArray("s") + QByteArray::number(round) + "-" + QByteArray::number(call % 3);
                      });
                sent[QString::fromLatin1(policy)].allowed += fired.allowed;
                sent[QString::fromLatin1(policy)].rejected += fired.rejected;
            }
            QTest::qWait(180);
        }
        quint32 windowRejections = 0; // each round's 3 subjects are let 20 calls each: the rest is rejected
        for (int round = 0; round < 8; ++round)
            windowRejections += quint32(std::max(0, 30 + 7 * round - 60));
        QCOMPARE(sent[QStringLiteral("window")].rejected, windowRejections);
        QVERIFY(sent[QStringLiteral("bucket")].rejected > 0);
        const int before0 = samplers[0]->readings(), before1 = samplers[1]->readings();
        QTRY_VERIFY_WITH_TIMEOUT(samplers[0]->readings() > before0 && samplers[1]->readings() > before1, 10000);
        for (const auto &sampler : samplers) {
            for (const auto &[policy, fired] : sent) {
                const model::RateHistory *history = sampler->history(policy);
                QVERIFY(history);
                quint64 allowed = 0, rejected = 0;
                const QVector<model::RatePoint> points = history->points(0, std::numeric_limits<qint64>::max());
                for (const model::RatePoint &point : points) {
                    allowed += point.allowed;
                    rejected += point.rejected;
                    QVERIFY(point.spanMs > 0);
                    QCOMPARE(point.allowedPerSecond(), point.allowed * 1000.0 / point.spanMs);
                }
                QVERIFY2(points.size() >= 2, qPrintable(QString::number(points.size()))); // it read during the traffic
                QCOMPARE(allowed, quint64(fired.allowed));
                QCOMPARE(rejected, quint64(fired.rejected));
            }
        }
        for (const auto &[policy, fired] : sent) {
            QCOMPARE(prometheus.await(policySeries("sluice_allowed_total", ns, policy.toLatin1().constData()),
                                      fired.allowed),
                     double(fired.allowed));
            QCOMPARE(prometheus.await(policySeries("sluice_rejected_total", ns, policy.toLatin1().constData()),
                                      fired.rejected),
                     double(fired.rejected));
        }
    }

    // What subject rules and reservations did, per policy that has them: allow-listed and denied calls
    // (a policy's override and the namespace's list), penalties started and in force, reservations,
    // settlements, units into debt and units not charged; counters carried across a reload like the totals.
    void subjectRulesAndReservationsAreCounted()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const redis::ConnectionOptions target = test::optionsFor(url);
        redis::RedisClient client(target);
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("promrules");
        auto login = test::makePolicy(QStringLiteral("login"), Algorithm::TokenBucket, 2, 3600000);
        login.blockMs = 600000;
        login.overrides = {{"ops", false, model::SubjectOverride::Kind::Allow, 0, 0}};
        auto llm = test::makePolicy(QStringLiteral("llm"), Algorithm::TokenBucket, 10, 3600000);
        llm.maxDebt = 5;
        const auto plain = test::makePolicy(QStringLiteral("plain"), Algorithm::FixedWindow, 10, 60000);
        QVERIFY(
            test::syncCommand(
                client, {"HSET", '{' + ns.toUtf8() + "}:lists", "entries", "{\"abuser-7\":\"deny\"}", "version", "1"})
                .ok());
        QString error = test::storeAndPublish(client, ns, {login, llm, plain});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const model::LibraryOwner owner = test::ownerOf(client, ns);
        const auto call = [&](const char *function, const QByteArray &policy, const QByteArray &subject,
                              const QByteArrayList &args = {}) {
            return test::syncCommand(client,
                                     QByteArrayList{"FCALL", owner.function(function), "1",
                                                    ns.toUtf8() + ':' + policy + ":{" + subject + '}', policy}
                                         + args);
        };
        for (int i = 0; i < 3; ++i)
            QCOMPARE(call("acquire", "login", "ops").value.elements.at(0).integer, 1);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(call("acquire", "login", "abuser-7").value.elements.at(2).integer, -3);
        for (int i = 0; i < 4; ++i)
            call("acquire", "login", "mallory"); // 2 pass, the third starts a block, the fourth meets it
        // 8 reserved, 15 used: 2 of the excess from what was left, 5 into debt. 10 reserved, 20 used: 5 into
        // debt, 5 beyond max_debt not charged.
        const QByteArray alice = call("reserve", "llm", "alice", {"8"}).value.elements.value(6).bytes;
        QCOMPARE(call("settle", "llm", "alice", {alice, "15"}).value.elements.value(1).integer, 0);
        const QByteArray bob = call("reserve", "llm", "bob", {"10"}).value.elements.value(6).bytes;
        QCOMPARE(call("settle", "llm", "bob", {bob, "20"}).value.elements.value(1).integer, 5);

        Exporter exporter;
        QVERIFY2(exporter.start(target, ns), qPrintable(exporter.log()));
        const QByteArray exposition = exporter.scrape();
        const auto value = [&](const char *name, const char *policy) {
            return exposed(exposition, policySeries(name, ns, policy)).value_or(-1);
        };
        QCOMPARE(value("sluice_allow_listed_total", "login"), 3.0);
        QCOMPARE(value("sluice_denied_total", "login"), 2.0);
        QCOMPARE(value("sluice_blocks_started_total", "login"), 1.0);
        QCOMPARE(value("sluice_blocked_subjects", "login"), 1.0);
        QCOMPARE(value("sluice_reservations_total", "llm"), 2.0);
        QCOMPARE(value("sluice_settlements_total", "llm"), 2.0);
        QCOMPARE(value("sluice_debt_units_total", "llm"), 10.0);
        QCOMPARE(value("sluice_uncharged_units_total", "llm"), 5.0);
        QCOMPARE(value("sluice_allowed_total", "login"), 5.0); // the allow-listed among them
        // The namespace's list makes every policy a ruled one; "plain" decided nothing yet.
        QCOMPARE(value("sluice_denied_total", "plain"), 0.0);

        Prometheus prometheus;
        QVERIFY2(prometheus.start(exporter.port()), qPrintable(prometheus.log()));
        const QString denied = policySeries("sluice_denied_total", ns, "login");
        QCOMPARE(prometheus.await(denied, 2), 2.0);
        // A republish reloads the library; its count starts again, the exporter's carries on.
        login.description = QStringLiteral("reloaded");
        error = test::storeAndPublish(client, ns, {login, llm, plain});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(call("acquire", "login", "abuser-7").value.elements.at(2).integer, -3);
        QCOMPARE(prometheus.await(denied, 3), 3.0);
        QCOMPARE(prometheus.value(QStringLiteral("resets(%1[5m])").arg(denied)), 0.0);
        QCOMPARE(prometheus.value(policySeries("sluice_debt_units_total", ns, "llm")), 10.0);
    }

    void clusterSumsAndAFrozenPrimary()
    {
        test::PrivateCluster cluster(3, test::RedisProcess::Patience::Quick);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        redis::RedisClient client(cluster.options());
        QVERIFY(test::openAndWait(client));
        QTRY_COMPARE_WITH_TIMEOUT(client.primaries().size(), 3, 10000);
        const QString ns = test::uniqueNamespace("promc");
        const QString error = test::storeAndPublish(
            client, ns, {test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 3, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // 60 subjects, five calls each: three pass and two are rejected, on whichever primary owns each.
        const test::Fired fired = test::fireAcquires(client, ns, QStringLiteral("quota"), 300, [](int call) {
            return QByteArray("subject-") + QByteArray::number(call % 60);
        });
        QCOMPARE(fired.allowed, 180u);
        QCOMPARE(fired.rejected, 120u);

        Exporter exporter;
        QVERIFY2(exporter.start(cluster.options(), ns), qPrintable(exporter.log()));
        const QString allowed = policySeries("sluice_allowed_total", ns, "quota");
        const QString rejected = policySeries("sluice_rejected_total", ns, "quota");
        QByteArray exposition = exporter.scrape();
        QCOMPARE(exposed(exposition, allowed), 180.0);
        QCOMPARE(exposed(exposition, rejected), 120.0);
        QCOMPARE(exposed(exposition, series("sluice_up", ns)), 1.0);
        for (int i = 0; i < cluster.size(); ++i) { // each primary decided some: the sum is over all three
            redis::RedisConnection node(cluster.node(i).options());
            QVERIFY(test::openAndWait(node));
            const redis::RedisReply stats
                = test::syncCommand(node, {"FCALL_RO", test::ownerOf(client, ns).function("stats"), "0", "0"});
            QVERIFY2(stats.ok() && stats.value.elements.at(3).integer > 0, qPrintable(stats.errorText()));
        }

        cluster.node(1).freeze();
        exposition = exporter.scrape();
        cluster.node(1).thaw();
        const QString frozen = QStringLiteral(",primary=\"127.0.0.1:%1\"").arg(cluster.node(1).port());
        const QString running = QStringLiteral(",primary=\"127.0.0.1:%1\"").arg(cluster.node(0).port());
        QVERIFY2(exposed(exposition, series("sluice_up", ns)) == 0.0, exposition.constData());
        QCOMPARE(exposed(exposition, series("sluice_primary_up", ns, frozen)), 0.0);
        QCOMPARE(exposed(exposition, series("sluice_primary_up", ns, running)), 1.0);
        QVERIFY2(!exposed(exposition, allowed) && !exposed(exposition, rejected), exposition.constData());
        QVERIFY(exposed(exposition, series("sluice_scrape_errors_total", ns)) >= 1.0);

        exposition = exporter.scrape(); // thawed: the totals are back, exact
        QCOMPARE(exposed(exposition, allowed), 180.0);
        QCOMPARE(exposed(exposition, rejected), 120.0);
        QCOMPARE(exposed(exposition, series("sluice_up", ns)), 1.0);
    }

    // Slow and idle clients (4 half-open connections made 7 of 8 scrapes time out): with 100 connections held
    // open and idle, every scrape still answers, well inside Prometheus's 10 s; and with Redis frozen, 6
    // scrapes at once each answer sluice_up 0 within the exporter's deadline instead of queueing.
    void idleClientsAndAFrozenRedisLeaveScrapesAnswered()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        Exporter exporter;
        QVERIFY2(exporter.start(server.options(), QStringLiteral("sluice")), qPrintable(exporter.log()));
        const QString up = series("sluice_up", QStringLiteral("sluice"));
        std::vector<std::unique_ptr<QTcpSocket>> idle;
        for (int i = 0; i < 100; ++i) {
            idle.push_back(std::make_unique<QTcpSocket>());
            idle.back()->connectToHost(QHostAddress::LocalHost, exporter.port());
            QVERIFY(idle.back()->waitForConnected(2000));
            if (i % 2 == 0) // half of them start a request and never finish it
                idle.back()->write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            idle.back()->flush();
        }
        qint64 longestMs = 0;
        int answered = 0;
        for (int scrape = 0; scrape < 8; ++scrape) {
            QElapsedTimer timer;
            timer.start();
            answered += exposed(exporter.scrape(), up) == 1.0;
            longestMs = std::max(longestMs, timer.elapsed());
        }
        qInfo("100 idle connections held open: %d of 8 scrapes answered, the longest in %lld ms", answered, longestMs);
        QCOMPARE(answered, 8);
        QVERIFY(longestMs < 9000);
        // Each idle connection is closed once it has sent no whole request for 3 s, so they cannot add up.
        QElapsedTimer closing;
        closing.start();
        QVERIFY(test::spinUntil(
            [&] {
            return std::all_of(idle.begin(), idle.end(), [](const std::unique_ptr<QTcpSocket> &socket) {
                return socket->state() == QAbstractSocket::UnconnectedState;
            });
            },
            10000));
        qInfo("the 100 idle connections were all closed by the exporter %lld ms after the scrapes", closing.elapsed());
        idle.clear();

        server.freeze();
        const auto thaw = qScopeGuard([&] { server.thaw(); });
        QElapsedTimer timer;
        timer.start();
        std::vector<std::unique_ptr<QNetworkAccessManager>> managers;
        std::vector<QNetworkReply *> replies;
        for (int i = 0; i < 6; ++i) {
            managers.push_back(std::make_unique<QNetworkAccessManager>());
            QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(exporter.port())));
            request.setTransferTimeout(30000);
            replies.push_back(managers.back()->get(request));
        }
        QVERIFY(test::spinUntil(
            [&] {
            return std::all_of(replies.begin(), replies.end(), [](QNetworkReply *r) { return r->isFinished(); });
            },
            30000));
        const qint64 frozenMs = timer.elapsed();
        int down = 0;
        for (QNetworkReply *reply : replies)
            down += exposed(reply->readAll(), up) == 0.0;
        qInfo("Redis frozen: 6 scrapes at once, %d answered sluice_up 0, all within %lld ms", down, frozenMs);
        QCOMPARE(down, 6);
        QVERIFY(frozenMs < 9500);
    }

    // The library's code (megabytes at the largest library) is read and hashed at most once per 30 s per
    // primary, not on every scrape: five scrapes in a row list the functions five times, and read the code
    // (one more FUNCTION LIST each) not at all after the first scrape.
    void theLibraryCodeIsNotReadOnEveryScrape()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        redis::RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        const QString error
            = test::storeAndPublish(client, QStringLiteral("sluice"),
                                    {test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 3, 60000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        Exporter exporter;
        QVERIFY2(exporter.start(server.options(), QStringLiteral("sluice")), qPrintable(exporter.log()));
        const QString current
            = series("sluice_library_state", QStringLiteral("sluice"),
                     QStringLiteral(",primary=\"127.0.0.1:%1\",state=\"current\"").arg(server.port()));
        QCOMPARE(exposed(exporter.scrape(), current), 1.0);
        QVERIFY(test::syncCommand(client, {"CONFIG", "RESETSTAT"}).ok());
        for (int scrape = 0; scrape < 5; ++scrape)
            QCOMPARE(exposed(exporter.scrape(), current), 1.0);
        const QByteArray stats = test::syncCommand(client, {"INFO", "commandstats"}).value.bytes;
        const QRegularExpressionMatch listed
            = QRegularExpression(QStringLiteral("cmdstat_function\\|list:calls=(\\d+)"))
                  .match(QString::fromUtf8(stats));
        QVERIFY2(listed.hasMatch(), stats.constData());
        QCOMPARE(listed.captured(1).toInt(), 5);
    }

    // A server whose maxmemory-policy can evict: status (text and --json) and the exporter say what it may
    // drop (buckets for volatile-*, any key for allkeys-*) and, once it has evicted under a small maxmemory,
    // that it did; a noeviction server raises neither.
    void evictionRiskAndEvictionsAreSaid_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("risk");
        QTest::addColumn<QString>("warning");
        QTest::newRow("allkeys-lru") << QStringLiteral("allkeys-lru") << QStringLiteral("everything")
                                     << QStringLiteral("maxmemory-policy allkeys-lru can evict any key when memory "
                                                       "runs out: limiter buckets (subjects get their full limit "
                                                       "again), and the policy store, the publish record and the "
                                                       "audit log too");
        QTest::newRow("volatile-ttl") << QStringLiteral("volatile-ttl") << QStringLiteral("buckets")
                                      << QStringLiteral("maxmemory-policy volatile-ttl can evict limiter buckets when "
                                                        "memory runs out (each has a TTL): buckets may be reset");
        QTest::newRow("noeviction") << QStringLiteral("noeviction") << QStringLiteral("none") << QString();
    }

    void evictionRiskAndEvictionsAreSaid()
    {
        QFETCH(QString, policy);
        QFETCH(QString, risk);
        QFETCH(QString, warning);
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        server.setExtraArguments(
            {QStringLiteral("--maxmemory-policy"), policy, QStringLiteral("--maxmemory"), QStringLiteral("8mb")});
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        redis::RedisClient client(server.options());
        QVERIFY(test::openAndWait(client));
        const QString error
            = test::storeAndPublish(client, QStringLiteral("sluice"),
                                    {test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 3, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // 400 keys of 64 kB with a TTL (which volatile-* may evict too): 25 MB into 8 MB. noeviction refuses them.
        const QByteArray filler(64 * 1024, 'x');
        for (int i = 0; i < 400; ++i)
            test::syncCommand(client, {"SET", "filler:" + QByteArray::number(i), filler, "EX", "3600"});
        const QString node = QStringLiteral("127.0.0.1:%1").arg(server.port());
        const QStringList ctl{QStringLiteral("-p"), QString::number(server.port())};

        const test::CtlRun status = test::sluicectl(ctl + QStringList{QStringLiteral("status")});
        const test::CtlRun json
            = test::sluicectl(ctl + QStringList{QStringLiteral("status"), QStringLiteral("--json")});
        const QJsonObject primary
            = QJsonDocument::fromJson(json.out.toUtf8()).object()[QLatin1String("nodes")].toArray().at(0).toObject();
        QCOMPARE(primary[QLatin1String("maxmemory_policy")].toString(), policy);
        QCOMPARE(primary[QLatin1String("eviction_risk")].toString(), risk);
        const QByteArray exposition = test::sluicectl(ctl + QStringList{QStringLiteral("metrics")}).out.toUtf8();
        const QString labels = QStringLiteral(",primary=\"%1\"").arg(node);
        const std::optional<double> evicted
            = exposed(exposition, series("sluice_primary_evicted_keys_total", QStringLiteral("sluice"), labels));
        qInfo("%s: evicted_keys %.0f", qPrintable(policy), evicted.value_or(-1));
        QCOMPARE(exposed(exposition, series("sluice_primary_eviction_risk", QStringLiteral("sluice"), labels)),
                 double(risk == QLatin1String("everything")    ? 2
                            : risk == QLatin1String("buckets") ? 1
                                                               : 0));
        if (warning.isEmpty()) {
            QCOMPARE(evicted, 0.0);
            QCOMPARE(primary[QLatin1String("evicted_keys")].toDouble(), 0.0);
            QVERIFY2(!status.err.contains(QLatin1String("evict")), qPrintable(status.err));
            return;
        }
        QVERIFY2(evicted > 0.0, exposition.constData());
        QVERIFY(primary[QLatin1String("evicted_keys")].toDouble() > 0);
        QVERIFY2(status.err.contains(QStringLiteral("sluicectl: warning: %1: %2").arg(node, warning)),
                 qPrintable(status.err));
        QVERIFY2(
            status.err.contains(QRegularExpression(
                QStringLiteral("sluicectl: warning: %1: \\d+ keys evicted since the server started \\(evicted_keys "
                               "counts the whole server, not only Sluice's keys\\): buckets may have been reset")
                    .arg(QRegularExpression::escape(node)))),
            qPrintable(status.err));
    }

    // An exporter outlives a Redis restart: sluice_up 0 while it is down, then back to 1 on its own.
    void survivesARedisRestart()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        Exporter exporter;
        QVERIFY2(exporter.start(server.options(), QStringLiteral("sluice")), qPrintable(exporter.log()));
        const QString up = series("sluice_up", QStringLiteral("sluice"));
        QCOMPARE(exposed(exporter.scrape(), up), 1.0);
        server.kill();
        QCOMPARE(exposed(exporter.scrape(), up), 0.0);
        QVERIFY2(server.restart(), qPrintable(server.errorString()));
        QVERIFY2(test::spinUntil([&] { return exposed(exporter.scrape(), up) == 1.0; }, 20000),
                 qPrintable(exporter.log()));
        QVERIFY2(exporter.log().contains(QLatin1String("scrapes answer sluice_up 0 until it is back")),
                 qPrintable(exporter.log()));
    }

    // Through Sentinel the exporter reads the primary it names, as every other command does.
    void sentinelNamesThePrimary()
    {
        SLUICE_REQUIRE_SERVICE(sentinel, "SLUICE_TEST_SENTINEL", "Redis Sentinel");
        SLUICE_REQUIRE_SERVICE(service, "SLUICE_TEST_SENTINEL_SERVICE", "the Sentinel service name");
        const QString url = QStringLiteral("redis-sentinel://%1#%2").arg(sentinel, service);
        redis::RedisClient client(test::optionsFor(url));
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("proms");
        const QString error = test::storeAndPublish(
            client, ns, {test::makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 3, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const test::Fired fired
            = test::fireAcquires(client, ns, QStringLiteral("quota"), 4, [](int) { return QByteArray("dave"); });
        QCOMPARE(fired.rejected, 1u);
        const test::CtlRun run = test::sluicectl(
            {QStringLiteral("-u"), url, QStringLiteral("--namespace"), ns, QStringLiteral("metrics")});
        QVERIFY2(run.exitCode == 0 && run.err.isEmpty(), qPrintable(run.err));
        const QByteArray exposition = run.out.toUtf8();
        QCOMPARE(exposed(exposition, policySeries("sluice_allowed_total", ns, "quota")), 3.0);
        QCOMPARE(exposed(exposition, policySeries("sluice_rejected_total", ns, "quota")), 1.0);
        QCOMPARE(exposed(exposition, series("sluice_up", ns)), 1.0);
        QCOMPARE(exposed(exposition,
                         series("sluice_primary_up", ns,
                                QStringLiteral(",primary=\"%1\"").arg(client.primaries().value(0)))),
                 1.0);
    }

    // Ten thousand rejected subjects give at most --top series per policy, and none without it.
    void topSubjectsAreCapped()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const redis::ConnectionOptions target = test::optionsFor(url);
        redis::RedisClient client(target);
        QVERIFY(test::openAndWait(client));
        const QString ns = test::uniqueNamespace("promt");
        const QString error = test::storeAndPublish(
            client, ns, {test::makePolicy(QStringLiteral("once"), Algorithm::FixedWindow, 1, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const test::Fired fired = test::fireAcquires(client, ns, QStringLiteral("once"), 20000, [](int call) {
            return QByteArray("s") + QByteArray::number(call / 2);
        });
        QCOMPARE(fired.rejected, 10000u);
        // Then one subject rejected 50 times: it enters the full summary and stays, counted exactly from then.
        QCOMPARE(
            test::fireAcquires(client, ns, QStringLiteral("once"), 51, [](int) { return QByteArray("hot"); }).rejected,
            50u);

        const QStringList args{QStringLiteral("-p"), QString::number(target.port), QStringLiteral("--namespace"), ns,
                               QStringLiteral("metrics")};
        const QString subjectSeries = QStringLiteral("\nsluice_subject_rejected_total{");
        const test::CtlRun capped = test::sluicectl(args + QStringList{QStringLiteral("--top"), QStringLiteral("32")});
        QCOMPARE(capped.exitCode, 0);
        QVERIFY2(capped.out.count(subjectSeries) == 32, qPrintable(capped.out.right(3000)));
        QVERIFY2(capped.out.contains(
                     QStringLiteral("\n# TYPE sluice_subject_rejected_total counter\nsluice_subject_rejected_total{"
                                    "namespace=\"%1\",policy=\"once\",subject=\"hot\"} 50\n")
                         .arg(ns)),
                 qPrintable(capped.out.right(3000)));
        const test::CtlRun none = test::sluicectl(args);
        QCOMPARE(none.exitCode, 0);
        QCOMPARE(none.out.count(subjectSeries), 0);
        QVERIFY(none.out.contains(
            QStringLiteral("sluice_rejected_total{namespace=\"%1\",policy=\"once\"} 10050\n").arg(ns)));
        const test::CtlRun tooMany = test::sluicectl(args + QStringList{QStringLiteral("--top"), QStringLiteral("33")});
        QCOMPARE(tooMany.exitCode, 2);
        QVERIFY2(tooMany.err.contains(QLatin1String("--top must be a whole number from 1 to 32")),
                 qPrintable(tooMany.err));
    }

    // TLS and basic authentication from a Prometheus web config: the real Prometheus, told the CA and the
    // credentials, scrapes it; a client without credentials, with a wrong password, or speaking plain HTTP
    // gets nothing of the namespace.
    void tlsAndBasicAuthLetOnlyTheConfiguredScraperIn()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTemporaryDir dir;
        const QString webConfig = makeWebConfig(dir, "s3cret pass");
        QVERIFY2(!webConfig.isEmpty(), "openssl or python3's crypt could not make the web config");
        Exporter exporter;
        QVERIFY2(
            exporter.start(server.options(), QStringLiteral("sluice"), {QStringLiteral("--web-config"), webConfig}),
            qPrintable(exporter.log()));
        QVERIFY2(exporter.log().contains(QLatin1String("serving https://")), qPrintable(exporter.log()));
        QFile certificateFile(dir.filePath(QStringLiteral("server.crt")));
        QVERIFY(certificateFile.open(QIODevice::ReadOnly));
        const QSslCertificate ca(&certificateFile, QSsl::Pem);
        const QUrl url(QStringLiteral("https://127.0.0.1:%1/metrics").arg(exporter.port()));
        const QString up = series("sluice_up", QStringLiteral("sluice"));

        int status = 0;
        QByteArray body = httpsGet(url, ca, "prometheus:s3cret pass", &status);
        QCOMPARE(status, 200);
        QCOMPARE(exposed(body, up), 1.0);
        body = httpsGet(url, ca, {}, &status);
        QCOMPARE(status, 401);
        QVERIFY(!body.contains("sluice_"));
        body = httpsGet(url, ca, "prometheus:wrong", &status);
        QCOMPARE(status, 401);
        QVERIFY(!body.contains("sluice_"));
        body = httpsGet(url, ca, "someone:s3cret pass", &status);
        QCOMPARE(status, 401);
        QCOMPARE(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(exporter.port())), &status),
                 QByteArray());
        QCOMPARE(status, 0); // no HTTP answer at all: the handshake failed

        Prometheus prometheus;
        QVERIFY2(prometheus.start(exporter.port(),
                                  QStringLiteral("    scheme: https\n    tls_config:\n      ca_file: %1\n"
                                                 "    basic_auth:\n      username: prometheus\n"
                                                 "      password: s3cret pass\n")
                                      .arg(dir.filePath(QStringLiteral("server.crt")))),
                 qPrintable(prometheus.log()));
        QCOMPARE(prometheus.await(up, 1), 1.0);
        QCOMPARE(prometheus.await(QStringLiteral("up{job=\"sluice\"}"), 1), 1.0);
    }

    // A web config that would leave the endpoint other than asked is refused before anything listens.
    void badWebConfigsAreRefused()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const QString port = QString::number(test::optionsFor(url).port);
        QTemporaryDir dir;
        QVERIFY(!makeWebConfig(dir, "pw").isEmpty());
        const QList<std::pair<QByteArray, QString>> cases{
            {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth: yes\n",
             QStringLiteral("tls_server_config has no setting \"client_auth\"")},
            {"basic_auth_users:\n  prometheus: hunter2\n", QStringLiteral("is not a bcrypt hash")},
            {"tls_server_config:\n  cert_file: server.crt\n", QStringLiteral("needs both cert_file and key_file")},
            {"tls_server_config:\n  cert_file: server.crt\n  key_file: server.crt\n",
             QStringLiteral("holds no unencrypted RSA or EC private key")},
            {"tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n",
             QStringLiteral("holds no PEM certificate")},
            {"tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
             QStringLiteral("cannot read the cert_file")},
            {"tls_server_config: [\n", QStringLiteral("not valid YAML")},
            {"tls_config:\n  cert_file: server.crt\n", QStringLiteral("has no setting \"tls_config\"")},
        };
        for (const auto &[yaml, expected] : cases) {
            const QString path = dir.filePath(QStringLiteral("bad.yml"));
            QVERIFY(test::writeFile(path, yaml));
            const test::CtlRun run = test::sluicectl(
                {QStringLiteral("-p"), port, QStringLiteral("metrics"), QStringLiteral("serve"),
                 QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--web-config"), path});
            QVERIFY2(run.exitCode == 5 && run.err.contains(expected) && !run.err.contains(QLatin1String("serving")),
                     qPrintable(QString::fromUtf8(yaml) + QStringLiteral(" -> ") + run.err));
        }
        const test::CtlRun once
            = test::sluicectl({QStringLiteral("-p"), port, QStringLiteral("metrics"), QStringLiteral("--web-config"),
                               dir.filePath(QStringLiteral("web.yml"))});
        QCOMPARE(once.exitCode, 2);
    }

    void badListenAddressesAreRefused()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "the standalone Redis");
        const QString port = QString::number(test::optionsFor(url).port);
        for (const QString &listen : {QStringLiteral("localhost:9786"), QStringLiteral("127.0.0.1"),
                                      QStringLiteral("127.0.0.1:70000"), QStringLiteral("::1:9786")}) {
            const test::CtlRun run = test::sluicectl({QStringLiteral("-p"), port, QStringLiteral("metrics"),
                                                      QStringLiteral("serve"), QStringLiteral("--listen"), listen});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(QLatin1String("--listen must be ADDRESS:PORT")), qPrintable(run.err));
        }
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
        const test::CtlRun busy
            = test::sluicectl({QStringLiteral("-p"), port, QStringLiteral("metrics"), QStringLiteral("serve"),
                               QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())});
        QCOMPARE(busy.exitCode, 1);
        QVERIFY2(busy.err.contains(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(taken.serverPort())),
                 qPrintable(busy.err));
        const test::CtlRun stray = test::sluicectl({QStringLiteral("-p"), port, QStringLiteral("metrics"),
                                                    QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
        QCOMPARE(stray.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestMetricsExporter)
#include "tst_metrics_exporter.moc"
