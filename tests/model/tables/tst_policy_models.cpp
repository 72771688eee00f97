// SPDX-License-Identifier: GPL-3.0-or-later
// The policy administration models: the list, audit and deployment table models under
// QAbstractItemModelTester (also behind the filter/sort proxy the list view uses); the audit log
// read back from a real Redis, per policy and across pages, rollbacks included; the published
// definitions the library record keeps; and the linter, summary and diff the editor shows.

#include "model/format/units.h"
#include "model/policy/audit_log.h"
#include "model/policy/policy_diff.h"
#include "model/policy/policy_lint.h"
#include "model/policy/policy_summary.h"
#include "model/tables/audit_model.h"
#include "model/tables/deployment_model.h"
#include "model/tables/policy_list_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QUuid>

using namespace sluice;
using model::Algorithm;
using model::Policy;
using model::PolicyChange;
using model::PolicyListModel;
using model::PolicyWarning;
using test::makePolicy;

namespace {

QVector<PolicyWarning::Kind> warningKinds(const Policy &policy, qint64 typicalCost = 1)
{
    QVector<PolicyWarning::Kind> kinds;
    for (const PolicyWarning &warning : model::lintPolicy(policy, typicalCost))
        kinds << warning.kind;
    return kinds;
}

QStringList strings(std::initializer_list<const char *> items)
{
    QStringList list;
    for (const char *item : items)
        list << QString::fromUtf8(item);
    return list;
}

QStringList column(const QAbstractItemModel &model, int column)
{
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row)
        values << model.index(row, column).data().toString();
    return values;
}

} // namespace

class TestPolicyModels : public QObject {
    Q_OBJECT

    std::unique_ptr<redis::RedisClient> m_client;
    QString m_namespace;

    QString commit(const QVector<PolicyChange> &changes, const QString &who = QStringLiteral("alice"))
    {
        using Commit = model::PolicyStore::CommitResult;
        Commit none;
        none.failure = sluice::model::Failure{sluice::model::Failure::Kind::TimedOut, QStringLiteral("no answer")};
        return sluice::model::messageOf(test::awaitCallback<Commit>(
                                            [&](QObject *context, auto done) {
            model::PolicyStore(m_client.get(), m_namespace).commit(changes, who, context, done);
                                            },
                                            none)
                                            .failure);
    }

    model::AuditLog::ReadResult readAudit(const QString &policy, int maxEntries)
    {
        model::AuditLog::ReadResult none;
        none.failure = sluice::model::Failure{sluice::model::Failure::Kind::TimedOut, QStringLiteral("no answer")};
        return test::awaitCallback<model::AuditLog::ReadResult>(
            [&](QObject *context, auto done) {
            model::AuditLog(m_client.get(), m_namespace).read(policy, maxEntries, context, done);
            },
            none, 30000);
    }

private Q_SLOTS:
    void init()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        m_client = std::make_unique<redis::RedisClient>(test::optionsFor(url));
        QVERIFY(test::openAndWait(*m_client));
        m_namespace = QStringLiteral("models-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    }

    void policyListMergesByNameUnderTheTester()
    {
        PolicyListModel list;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&list);
        proxy.setSortRole(PolicyListModel::SortRole);
        proxy.setFilterKeyColumn(-1);
        proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
        QAbstractItemModelTester listTester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

        Policy api = makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150);
        Policy login = makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 5, 60000);
        login.windowStart = model::WindowStart::FirstCall;
        Policy uploads = makePolicy(QStringLiteral("uploads"), Algorithm::Concurrency, 3, 30000);
        list.setPolicies({uploads, api, login});
        QCOMPARE(column(list, PolicyListModel::Name), strings({"api", "login", "uploads"}));
        QCOMPARE(list.index(0, PolicyListModel::Window).data().toString(), QStringLiteral("1 minute"));
        QCOMPARE(list.index(1, PolicyListModel::Window).data().toString(),
                 QStringLiteral("1 minute from the first call"));
        QCOMPARE(list.index(0, PolicyListModel::Burst).data().toLongLong(), 150);
        QCOMPARE(list.index(1, PolicyListModel::Burst).data().toLongLong(), 5); // burst defaults to the limit

        // A refresh: one gone, one new, one changed; the untouched row keeps its place.
        QPersistentModelIndex kept = list.index(2, 0);
        QSignalSpy removed(&list, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&list, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&list, &QAbstractItemModel::dataChanged);
        login.limit = 10;
        login.version = 2;
        list.setPolicies({login, uploads, makePolicy(QStringLiteral("batch"), Algorithm::Gcra, 10, 1000, 20)});
        QCOMPARE(column(list, PolicyListModel::Name), strings({"batch", "login", "uploads"}));
        QCOMPARE(removed.size(), 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(kept.data().toString(), QStringLiteral("uploads"));
        QCOMPARE(list.index(1, PolicyListModel::Limit).data().toLongLong(), 10);

        // Published: the same definition, a changed one, a missing one; unknown without a record.
        QCOMPARE(column(list, PolicyListModel::Published), strings({"?", "?", "?"}));
        Policy publishedLogin = login;
        publishedLogin.limit = 5;
        list.setPublished({publishedLogin, uploads}, true);
        QCOMPARE(column(list, PolicyListModel::Published), strings({"no", "changed", "yes"}));

        // Search as you type and sorting by a number column go through the proxy.
        proxy.setFilterFixedString(QStringLiteral("GCRA"));
        QCOMPARE(column(proxy, PolicyListModel::Name), strings({"batch"}));
        proxy.setFilterFixedString(QString());
        proxy.sort(PolicyListModel::Window, Qt::DescendingOrder); // by milliseconds, not by the text
        QCOMPARE(column(proxy, PolicyListModel::Name), strings({"login", "uploads", "batch"}));
        list.setPolicies({});
        QCOMPARE(proxy.rowCount(), 0);
    }

    void deploymentModelShowsPublishProgressUnderTheTester()
    {
        model::DeploymentModel deployment;
        QAbstractItemModelTester tester(&deployment, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model::NodeLibrary a;
        a.node = QStringLiteral("127.0.0.1:7000");
        a.state = model::NodeLibrary::State::Stale;
        a.version = 3;
        a.digest = "0123456789abcdef";
        deployment.setNodes({a});
        QCOMPARE(deployment.index(0, model::DeploymentModel::State).data().toString(), QStringLiteral("stale"));
        QCOMPARE(deployment.index(0, model::DeploymentModel::Digest).data().toString(), QStringLiteral("0123456789ab"));
        QCOMPARE(deployment.index(0, 0).data(model::DeploymentModel::HealthyRole).toBool(), false);

        deployment.startPublish({a.node, QStringLiteral("127.0.0.1:7001")});
        QCOMPARE(deployment.rowCount(), 2);
        QVERIFY(deployment.isPending(0) && deployment.isPending(1));
        QCOMPARE(deployment.index(1, model::DeploymentModel::State).data().toString(), QStringLiteral("loading\u2026"));
        a.state = model::NodeLibrary::State::Current;
        a.version = 4;
        deployment.setNodeResult(a);
        QVERIFY(!deployment.isPending(0) && deployment.isPending(1));
        QCOMPARE(deployment.index(0, model::DeploymentModel::State).data().toString(), QStringLiteral("current"));
        QCOMPARE(deployment.index(0, 0).data(model::DeploymentModel::HealthyRole).toBool(), true);

        // Listed by address, the port as a number, whatever order they come in.
        const auto nodes = [&] {
            QStringList names;
            for (int row = 0; row < deployment.rowCount(); ++row)
                names << deployment.index(row, model::DeploymentModel::Node).data().toString();
            return names;
        };
        QVector<model::NodeLibrary> unordered;
        for (const char *node : {"127.0.0.1:27103", "127.0.0.2:7000", "127.0.0.1:27101", "127.0.0.1:9000"}) {
            model::NodeLibrary library;
            library.node = QLatin1String(node);
            unordered << library;
        }
        deployment.setNodes(unordered);
        const QStringList byAddress
            = strings({"127.0.0.1:9000", "127.0.0.1:27101", "127.0.0.1:27103", "127.0.0.2:7000"});
        QCOMPARE(nodes(), byAddress);
        model::NodeLibrary added;
        added.node = QStringLiteral("127.0.0.1:27102");
        deployment.setNodeResult(added);
        QCOMPARE(
            nodes(),
            strings({"127.0.0.1:9000", "127.0.0.1:27101", "127.0.0.1:27102", "127.0.0.1:27103", "127.0.0.2:7000"}));
        deployment.startPublish({QStringLiteral("127.0.0.2:7000"), QStringLiteral("127.0.0.1:9000")});
        QCOMPARE(nodes(), strings({"127.0.0.1:9000", "127.0.0.2:7000"}));
    }

    void auditLogReadsOnePolicysHistoryAcrossPages()
    {
        Policy api = makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150);
        QCOMPARE(commit({{PolicyChange::Kind::Put, api, 0}}), QString());
        api.limit = 200;
        QCOMPARE(commit({{PolicyChange::Kind::Put, api, 1}}, QStringLiteral("bob")), QString());
        // More entries about another policy than one page holds, after api's.
        Policy noise = makePolicy(QStringLiteral("noise"), Algorithm::FixedWindow, 1, 1000);
        for (int i = 0; i < 1200; ++i) {
            noise.limit = i + 1;
            model::PolicyStore(m_client.get(), m_namespace)
                .commit({{PolicyChange::Kind::Put, noise, -1}}, QStringLiteral("load"), this, [](auto) {});
        }
        QCOMPARE(test::syncCommand(*m_client, {"XLEN", model::AdminKeys(m_namespace).audit()}).value.integer, 1202);
        // Roll back to version 1: the entry says so, with both definitions.
        api.limit = 100;
        QCOMPARE(commit({{PolicyChange::Kind::Put, api, 2, 1}}, QStringLiteral("carol")), QString());

        const auto history = readAudit(QStringLiteral("api"), 50);
        QVERIFY2(!history.failure, qPrintable(sluice::model::messageOf(history.failure)));
        QVERIFY(history.complete);
        QCOMPARE(history.entries.size(), 3);
        const model::AuditEntry &rollback = history.entries.at(0);
        QCOMPARE(rollback.action, QStringLiteral("rollback"));
        QCOMPARE(rollback.rollbackTo, 1);
        QCOMPARE(rollback.version, 3);
        QCOMPARE(rollback.who, QStringLiteral("carol"));
        QCOMPARE(rollback.before->limit, 200);
        QCOMPARE(rollback.after->limit, 100);
        QCOMPARE(rollback.changeText(), QStringLiteral("rolled back to version 1, Limit 200 \u2192 100"));
        QCOMPARE(history.entries.at(1).action, QStringLiteral("update"));
        QCOMPARE(history.entries.at(1).who, QStringLiteral("bob"));
        QCOMPARE(history.entries.at(2).action, QStringLiteral("create"));
        QVERIFY(!history.entries.at(2).before.has_value());
        QCOMPARE(history.entries.at(2).after->burst, 150);

        const auto newest = readAudit(QString(), 5);
        QCOMPARE(newest.entries.size(), 5);
        QVERIFY(!newest.complete);
        QCOMPARE(newest.entries.at(0).policy, QStringLiteral("api"));

        model::AuditModel audit;
        QAbstractItemModelTester tester(&audit, QAbstractItemModelTester::FailureReportingMode::QtTest);
        audit.setEntries(history.entries);
        QCOMPARE(audit.rowCount(), 3);
        QCOMPARE(audit.index(0, model::AuditModel::Who).data().toString(), QStringLiteral("carol"));
        QCOMPARE(audit.index(2, model::AuditModel::Change).data().toString(), QStringLiteral("created"));
    }

    void damagedAuditEntryIsAClearError()
    {
        test::syncCommand(*m_client,
                          {"XADD", model::AdminKeys(m_namespace).audit(), "*", "policy", "api", "action", "update",
                           "old", "", "new", "{not json"});
        const auto read = readAudit(QStringLiteral("api"), 10);
        QVERIFY(read.entries.isEmpty());
        QVERIFY2(sluice::model::messageOf(read.failure).contains(QStringLiteral("not a JSON object")),
                 qPrintable(sluice::model::messageOf(read.failure)));
    }

    void aRepairOfDamageIsReadAsOne()
    {
        // What a repair records as the old definition is the damage as found: it reads as a repair.
        test::syncCommand(*m_client,
                          {"XADD", model::AdminKeys(m_namespace).audit(), "*", "policy", "api", "action", "update",
                           "version", "2", "old", R"({"limit":"abc"})", "new",
                           R"({"algorithm":"gcra","limit":"5","window_ms":"1000","burst":"5","shadow":"0"})"});
        const auto read = readAudit(QStringLiteral("api"), 10);
        QVERIFY2(!read.failure, qPrintable(sluice::model::messageOf(read.failure)));
        QCOMPARE(read.entries.size(), 1);
        QVERIFY(read.entries.first().replacedDamage);
        QVERIFY(!read.entries.first().before.has_value());
        QVERIFY2(read.entries.first().changeText().startsWith(QLatin1String("repaired a damaged definition")),
                 qPrintable(read.entries.first().changeText()));
    }

    void publishRecordsTheDefinitionsAndReportsEachNode()
    {
        const Policy api = makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150);
        QCOMPARE(commit({{PolicyChange::Kind::Put, api, 0}}), QString());
        QStringList reported;
        const auto result = test::awaitCallback<model::PublishResult>(
            [&](QObject *context, auto done) {
            model::LibraryPublisher(m_client.get(), {m_namespace, 0})
                .publish(QStringLiteral("alice"), context, done,
                         [&](const model::NodeLibrary &node) { reported << node.node; });
            },
            {});
        QVERIFY2(result.ok(), qPrintable(sluice::model::messageOf(result.failure)));
        QCOMPARE(reported, m_client->primaries());
        const model::DeploymentStatus status = test::libraryStatus(*m_client, m_namespace);
        QVERIFY(status.published.policiesKnown);
        QCOMPARE(status.published.policies.size(), 1);
        QVERIFY(status.published.policies.first().sameDefinition(api));
    }

    void linterWarnsAboutWhatIsSuspicious()
    {
        const Policy clean = makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150);
        QVERIFY(warningKinds(clean).isEmpty());
        QCOMPARE(warningKinds(clean, 200), QVector<PolicyWarning::Kind>{PolicyWarning::Kind::BurstBelowCost});
        QCOMPARE(warningKinds(makePolicy(QStringLiteral("x"), Algorithm::SlidingLog, 5, 60000), 6),
                 QVector<PolicyWarning::Kind>{PolicyWarning::Kind::BurstBelowCost});
        QCOMPARE(warningKinds(makePolicy(QStringLiteral("x"), Algorithm::Gcra, 1, 5)),
                 QVector<PolicyWarning::Kind>{PolicyWarning::Kind::WindowNearResolution});
        QCOMPARE(warningKinds(makePolicy(QStringLiteral("x"), Algorithm::TokenBucket, 1'000'000'000, 1000)),
                 QVector<PolicyWarning::Kind>{PolicyWarning::Kind::NeverRejects});
        // The rate in plain digits, as everywhere else ("16,666,667 per second", never "1.67e+07").
        const QVector<PolicyWarning> huge
            = model::lintPolicy(makePolicy(QStringLiteral("x"), Algorithm::TokenBucket, 1'000'000'000, 60000));
        QCOMPARE(huge.size(), 1);
        QVERIFY2(
            huge.first().message.startsWith(model::formatDecimal(1e9 * 1000 / 60000) + QStringLiteral(" per second"))
                && !huge.first().message.contains(QLatin1String("e+")),
            qPrintable(huge.first().message));
        QVERIFY(warningKinds(makePolicy(QStringLiteral("x"), Algorithm::Concurrency, 1'000, 1000)).isEmpty());
        QCOMPARE(warningKinds(makePolicy(QStringLiteral("x"), Algorithm::FixedWindow, 100, 60000)),
                 QVector<PolicyWarning::Kind>{PolicyWarning::Kind::FixedWindowEdges});
        Policy shadow = clean;
        shadow.shadow = true;
        QCOMPARE(warningKinds(shadow), QVector<PolicyWarning::Kind>{PolicyWarning::Kind::ShadowOn});
    }

    void summaryReadsLikeASentence_data()
    {
        QTest::addColumn<Policy>("policy");
        QTest::addColumn<QString>("summary");
        QTest::newRow("token bucket") << makePolicy(QStringLiteral("a"), Algorithm::TokenBucket, 100, 60000, 150)
                                      << QStringLiteral(
                                             "Up to 150 requests at once, then 100 per minute as tokens refill.");
        QTest::newRow("slow") << makePolicy(QStringLiteral("a"), Algorithm::SlidingLog, 5, 86'400'000)
                              << QStringLiteral("At most 5 requests in any day, exactly.");
        QTest::newRow("odd window") << makePolicy(QStringLiteral("a"), Algorithm::FixedWindow, 1, 1500)
                                    << QStringLiteral(
                                           "At most 1 request per 1,500 ms, counted in windows aligned to the clock; "
                                           "up to twice that can pass around a window's edge.");
        Policy opened = makePolicy(QStringLiteral("a"), Algorithm::FixedWindow, 1000, 86'400'000);
        opened.windowStart = model::WindowStart::FirstCall;
        QTest::newRow("first call") << opened
                                    << QStringLiteral("At most 1,000 requests per day, counted in windows that open at "
                                                      "each subject's first call; up to twice that can pass around a "
                                                      "window's edge.");
        QTest::newRow("concurrency")
            << makePolicy(QStringLiteral("a"), Algorithm::Concurrency, 3, 90'000)
            << QStringLiteral("At most 3 requests in flight at once; a lease not released ends after 90 seconds.");
        Policy shadow = makePolicy(QStringLiteral("a"), Algorithm::Gcra, 10, 3'600'000, 2);
        shadow.shadow = true;
        QTest::newRow("shadow gcra") << shadow
                                     << QStringLiteral(
                                            "Up to 2 requests at once, then 10 per hour, evenly spaced. Shadow mode: "
                                            "rejections are only counted, every request passes.");
    }

    void summaryReadsLikeASentence()
    {
        QFETCH(Policy, policy);
        QFETCH(QString, summary);
        QCOMPARE(model::describePolicy(policy), summary);
    }

    void diffListsOnlyWhatChanged()
    {
        Policy before = makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150);
        Policy after = before;
        after.windowMs = 1000;
        after.version = 7; // bookkeeping is not part of the definition
        const auto changes = model::diffPolicies(&before, &after);
        QCOMPARE(changes.size(), 1);
        QCOMPARE(changes.first().field, QStringLiteral("window_ms"));
        QCOMPARE(changes.first().label, QStringLiteral("Window")); // the form's word, on every screen
        QCOMPARE(changes.first().before, QStringLiteral("1 minute"));
        QCOMPARE(changes.first().after, QStringLiteral("1 second"));
        after.limit = 4251;
        QCOMPARE(model::diffPolicies(&before, &after).first().after, QLocale().toString(4251)); // grouped, as elsewhere
        // Rates: one decimal below 10 only when it shows one, so "7" and "10" never stand beside "7.0".
        QCOMPARE(model::formatDecimal(6.98), QLocale().toString(7));
        QCOMPARE(model::formatDecimal(9.96), QLocale().toString(10));
        QCOMPARE(model::formatDecimal(9.5), QLocale().toString(9.5, 'f', 1));
        QCOMPARE(model::formatDecimal(4251.4), QLocale().toString(4251));
        // A created policy lists every field that applies: a token bucket without a description has
        // neither that nor a window start.
        const auto created = model::diffPolicies(nullptr, &after);
        QCOMPARE(created.size(), 6);
        QVERIFY(created.first().before.isEmpty());
        Policy window = makePolicy(QStringLiteral("quota"), Algorithm::FixedWindow, 100, 60000);
        Policy opened = window;
        opened.windowStart = model::WindowStart::FirstCall;
        const auto started = model::diffPolicies(&window, &opened);
        QCOMPARE(started.size(), 1);
        QCOMPARE(started.first().label, QStringLiteral("Window start"));
        QCOMPARE(started.first().before, QStringLiteral("aligned to the clock"));
        QCOMPARE(started.first().after, QStringLiteral("at the first call"));
        QVERIFY(model::diffPolicies(&before, &before).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestPolicyModels)
#include "tst_policy_models.moc"
