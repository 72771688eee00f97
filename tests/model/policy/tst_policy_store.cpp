// SPDX-License-Identifier: GPL-3.0-or-later
// The policy store against a real Redis: atomic optimistic saves, audit entries, no-op re-applies,
// all-or-nothing batches, deletes, and clear errors for damaged stored data.

#include "model/limiter/lua_source.h"
#include "model/policy/policy_plan.h"
#include "model/policy/policy_store.h"
#include "redis/redis_client.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>
#include <QUuid>

using namespace sluice;
using model::Algorithm;
using model::Policy;
using model::PolicyChange;
using model::PolicyPlan;
using model::PolicyStore;
using model::SubjectOverride;
using model::WindowStart;
using redis::RedisClient;

namespace {

Policy policy(const QString &name, qint64 limit)
{
    Policy p;
    p.name = name;
    p.algorithm = model::Algorithm::TokenBucket;
    p.limit = limit;
    p.windowMs = 60000;
    p.burst = 150;
    p.description = QStringLiteral("end]] .. redis.call('FLUSHALL') .. [[\" ünï");
    return p;
}

PolicyChange put(const Policy &p, qint64 expected)
{
    return {PolicyChange::Kind::Put, p, expected};
}

} // namespace

class TestPolicyStore : public QObject {
    Q_OBJECT

    std::unique_ptr<RedisClient> m_connection;
    QString m_namespace;

    PolicyStore::CommitResult commit(const QVector<PolicyChange> &changes, const QString &who = QStringLiteral("alice"))
    {
        PolicyStore store(m_connection.get(), m_namespace);
        PolicyStore::CommitResult result;
        bool finished = false;
        store.commit(changes, who, this, [&](const PolicyStore::CommitResult &r) {
            result = r;
            finished = true;
        });
        if (!QTest::qWaitFor([&] { return finished; }, 10000))
            result.failure
                = sluice::model::Failure{sluice::model::Failure::Kind::TimedOut, QStringLiteral("no answer")};
        return result;
    }

    PolicyStore::ListResult list()
    {
        PolicyStore store(m_connection.get(), m_namespace);
        PolicyStore::ListResult result;
        bool finished = false;
        store.list(this, [&](const PolicyStore::ListResult &r) {
            result = r;
            finished = true;
        });
        if (!QTest::qWaitFor([&] { return finished; }, 10000))
            result.failure
                = sluice::model::Failure{sluice::model::Failure::Kind::TimedOut, QStringLiteral("no answer")};
        return result;
    }

    redis::RedisReply redisCall(const QByteArrayList &args) { return test::syncCommand(*m_connection, args); }
    QByteArray key(const char *suffix) const { return '{' + m_namespace.toUtf8() + '}' + suffix; }

private Q_SLOTS:
    void init()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        m_connection = std::make_unique<RedisClient>(test::optionsFor(url));
        QVERIFY(test::openAndWait(*m_connection));
        m_namespace = QStringLiteral("test-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    }

    void createsListsAndAudits()
    {
        const auto created = commit({put(policy(QStringLiteral("api"), 100), 0)});
        QVERIFY2(!created.failure, qPrintable(sluice::model::messageOf(created.failure)));
        QCOMPARE(created.changed, QStringList{QStringLiteral("api")});

        const auto listed = list();
        QVERIFY2(!listed.failure, qPrintable(sluice::model::messageOf(listed.failure)));
        QCOMPARE(listed.policies.size(), 1);
        const Policy &stored = listed.policies.first();
        QVERIFY(stored.sameDefinition(policy(QStringLiteral("api"), 100)));
        QCOMPARE(stored.version, 1);
        QCOMPARE(stored.updatedBy, QStringLiteral("alice"));
        QVERIFY(stored.updatedAtMs > 1'600'000'000'000);

        const auto audit = redisCall({"XRANGE", key(":audit"), "-", "+"});
        QCOMPARE(audit.value.elements.size(), 1);
        const QByteArrayList fields = [&] {
            QByteArrayList out;
            for (const auto &v : audit.value.elements.first().elements.at(1).elements)
                out << v.bytes;
            return out;
        }();
        QVERIFY(fields.contains("create"));
        QVERIFY(fields.contains("alice"));
        QCOMPARE(redisCall({"SMEMBERS", key(":policies")}).value.elements.size(), 1);
    }

    // Every save (the dashboard's single policy as much as apply's file) is bounded where it is written: a
    // namespace that holds the most policies it may takes no new one, and nothing is written; a change to
    // one it holds, or a delete, still goes through.
    void aFullNamespaceTakesNoNewPolicy()
    {
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 100), 0)}).failure);
        QByteArrayList fill{"SADD", key(":policies")};
        for (int i = 1; i < model::policy_limits::maxPoliciesPerNamespace; ++i)
            fill << "filler-" + QByteArray::number(i);
        QCOMPARE(redisCall(fill).value.integer, model::policy_limits::maxPoliciesPerNamespace - 1);
        const qint64 auditBefore = redisCall({"XLEN", key(":audit")}).value.integer;

        const auto refused = commit({put(policy(QStringLiteral("one-more"), 5), 0)});
        QVERIFY(refused.failure);
        QCOMPARE(refused.failure->kind, sluice::model::Failure::Kind::Invalid);
        QCOMPARE(refused.failure->message,
                 QStringLiteral("the namespace would hold %1 policies; it may hold at most %2")
                     .arg(model::policy_limits::maxPoliciesPerNamespace + 1)
                     .arg(model::policy_limits::maxPoliciesPerNamespace));
        QCOMPARE(redisCall({"EXISTS", key(":policy:one-more")}).value.integer, 0);
        QCOMPARE(redisCall({"SCARD", key(":policies")}).value.integer, model::policy_limits::maxPoliciesPerNamespace);
        QCOMPARE(redisCall({"XLEN", key(":audit")}).value.integer, auditBefore);

        const auto updated = commit({put(policy(QStringLiteral("api"), 200), 1)});
        QVERIFY2(!updated.failure, qPrintable(sluice::model::messageOf(updated.failure)));
        const auto swapped = commit({{PolicyChange::Kind::Delete, policy(QStringLiteral("api"), 200), 2},
                                     put(policy(QStringLiteral("one-more"), 5), 0)});
        QVERIFY2(!swapped.failure, qPrintable(sluice::model::messageOf(swapped.failure)));
        QCOMPARE(redisCall({"SCARD", key(":policies")}).value.integer, model::policy_limits::maxPoliciesPerNamespace);
        redisCall({"DEL", key(":policies"), key(":audit"), key(":policy:one-more")});
    }

    void reapplyingTheSameDefinitionChangesNothing()
    {
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 100), 0)}).failure);
        const auto again = commit({put(policy(QStringLiteral("api"), 100), -1)}, QStringLiteral("bob"));
        QVERIFY2(!again.failure, qPrintable(sluice::model::messageOf(again.failure)));
        QVERIFY(again.changed.isEmpty());
        QCOMPARE(redisCall({"XLEN", key(":audit")}).value.integer, 1);
        QCOMPARE(list().policies.first().updatedBy, QStringLiteral("alice"));
    }

    // The window start is stored only when it is not the default, so an aligned policy's hash is the
    // one stored before the field existed; changing it is a new version, audited.
    void windowStartIsStoredWhenSet()
    {
        Policy window = policy(QStringLiteral("quota"), 100);
        window.algorithm = Algorithm::FixedWindow;
        QVERIFY(!commit({put(window, 0)}).failure);
        const QByteArray hash = key(":policy:quota");
        QCOMPARE(redisCall({"HEXISTS", hash, "window_start"}).value.integer, 0);
        window.windowStart = WindowStart::FirstCall;
        const auto changed = commit({put(window, 1)});
        QVERIFY2(!changed.failure, qPrintable(sluice::model::messageOf(changed.failure)));
        QCOMPARE(changed.changed, QStringList{QStringLiteral("quota")});
        QCOMPARE(redisCall({"HGET", hash, "window_start"}).value.bytes, QByteArray("first_call"));
        const Policy stored = list().policies.first();
        QCOMPARE(stored.windowStart, WindowStart::FirstCall);
        QCOMPARE(stored.version, 2);
        const auto audit = redisCall({"XREVRANGE", key(":audit"), "+", "-", "COUNT", "1"});
        const auto &entry = audit.value.elements.first().elements.at(1).elements;
        const auto newAt = std::find_if(entry.begin(), entry.end(), [](const auto &v) { return v.bytes == "new"; });
        QVERIFY(newAt != entry.end() && (newAt + 1)->bytes.contains("\"window_start\":\"first_call\""));
    }

    void updateBumpsVersionAndAuditsOldAndNew()
    {
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 100), 0)}).failure);
        const auto updated = commit({put(policy(QStringLiteral("api"), 200), 1)}, QStringLiteral("bob"));
        QVERIFY2(!updated.failure, qPrintable(sluice::model::messageOf(updated.failure)));
        const Policy stored = list().policies.first();
        QCOMPARE(stored.limit, 200);
        QCOMPARE(stored.version, 2);
        QCOMPARE(stored.updatedBy, QStringLiteral("bob"));
        const auto audit = redisCall({"XREVRANGE", key(":audit"), "+", "-", "COUNT", "1"});
        const auto &entry = audit.value.elements.first().elements.at(1).elements;
        QByteArray oldValue, newValue;
        for (qsizetype i = 0; i + 1 < entry.size(); i += 2) {
            if (entry.at(i).bytes == "old")
                oldValue = entry.at(i + 1).bytes;
            if (entry.at(i).bytes == "new")
                newValue = entry.at(i + 1).bytes;
        }
        QVERIFY2(oldValue.contains("\"limit\":\"100\""), oldValue.constData());
        QVERIFY2(newValue.contains("\"limit\":\"200\""), newValue.constData());
    }

    void concurrentSaveIsAConflictAndLosesNothing()
    {
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 100), 0)}).failure);
        // Both edit version 1; Bob saves first.
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 300), 1)}, QStringLiteral("bob")).failure);
        const auto late = commit({put(policy(QStringLiteral("api"), 400), 1)}, QStringLiteral("carol"));
        QVERIFY((late.failure && late.failure->kind == sluice::model::Failure::Kind::Conflict));
        QVERIFY2(sluice::model::messageOf(late.failure).contains(QLatin1String("api expected 1 found 2")),
                 qPrintable(sluice::model::messageOf(late.failure)));
        const Policy stored = list().policies.first();
        QCOMPARE(stored.limit, 300);
        QCOMPARE(stored.updatedBy, QStringLiteral("bob"));
        QCOMPARE(redisCall({"XLEN", key(":audit")}).value.integer, 2);
    }

    void batchIsAllOrNothing()
    {
        QVERIFY(!commit({put(policy(QStringLiteral("api"), 100), 0)}).failure);
        const auto batch
            = commit({put(policy(QStringLiteral("fresh"), 5), 0), put(policy(QStringLiteral("api"), 7), 0)});
        QVERIFY((batch.failure && batch.failure->kind == sluice::model::Failure::Kind::Conflict));
        const auto listed = list();
        QCOMPARE(listed.policies.size(), 1);
        QCOMPARE(listed.policies.first().limit, 100);
        QCOMPARE(redisCall({"EXISTS", key(":policy:fresh")}).value.integer, 0);
    }

    void deleteRemovesAndAudits()
    {
        QVERIFY(
            !commit({put(policy(QStringLiteral("api"), 100), 0), put(policy(QStringLiteral("web"), 10), 0)}).failure);
        const auto deleted = commit({{PolicyChange::Kind::Delete, policy(QStringLiteral("api"), 0), 1}});
        QVERIFY2(!deleted.failure, qPrintable(sluice::model::messageOf(deleted.failure)));
        QCOMPARE(deleted.changed, QStringList{QStringLiteral("api")});
        const auto listed = list();
        QCOMPARE(listed.policies.size(), 1);
        QCOMPARE(listed.policies.first().name, QStringLiteral("web"));
        QCOMPARE(redisCall({"EXISTS", key(":policy:api")}).value.integer, 0);
        QCOMPARE(redisCall({"XLEN", key(":audit")}).value.integer, 3);
        // Deleting what is gone changes nothing.
        QVERIFY(commit({{PolicyChange::Kind::Delete, policy(QStringLiteral("api"), 0), -1}}).changed.isEmpty());
    }

    // Overrides and a penalty are stored with the definition (the overrides as JSON), read back the same and
    // audited; a version that does not know a stored field refuses to save that policy rather than drop it.
    void subjectRulesAreStoredAndUnknownFieldsKept()
    {
        Policy ruled = policy(QStringLiteral("login"), 5);
        ruled.blockMs = 600000;
        ruled.overrides = {{"abuser-7", false, SubjectOverride::Kind::Deny, 0, 0},
                           {"batch-", true, SubjectOverride::Kind::Limits, 50, 0},
                           {"partner-x", false, SubjectOverride::Kind::Limits, 1000, 2000}};
        QVERIFY(!commit({put(ruled, 0)}).failure);
        const QByteArray hash = key(":policy:login");
        QCOMPARE(redisCall({"HGET", hash, "block_ms"}).value.bytes, QByteArray("600000"));
        QCOMPARE(
            redisCall({"HGET", hash, "overrides"}).value.bytes,
            sluice::test::js("{'abuser-7':'deny','batch-*':{'limit':50},'partner-x':{'burst':2000,'limit':1000}}"));
        const Policy stored = list().policies.first();
        QVERIFY(stored.sameDefinition(ruled));
        QVERIFY(stored.unknownFields.isEmpty());
        const auto audit = redisCall({"XREVRANGE", key(":audit"), "+", "-", "COUNT", "1"});
        const auto &entry = audit.value.elements.first().elements.at(1).elements;
        const auto newAt = std::find_if(entry.begin(), entry.end(), [](const auto &v) { return v.bytes == "new"; });
        QVERIFY(newAt != entry.end() && (newAt + 1)->bytes.contains("\"block_ms\":\"600000\"")
                && (newAt + 1)->bytes.contains("partner-x"));

        // A field from a newer version: kept, listed, and saving the policy here is refused.
        QVERIFY(redisCall({"HSET", hash, "quota_zone", "eu"}).ok());
        const PolicyStore::ListResult withNewer = list();
        QCOMPARE(withNewer.policies.first().unknownFields, QStringList{QStringLiteral("quota_zone")});
        Policy edited = withNewer.policies.first();
        edited.limit = 6;
        const PolicyPlan plan = PolicyPlan::between(withNewer, {edited}, false);
        QCOMPARE(plan.problems.value(0).toString(),
                 QStringLiteral("policy \"login\", field \"quota_zone\": was stored by a newer Sluice with fields this "
                                "version does not know: saving it here would drop them; save it with that version"));
        QVERIFY(PolicyPlan::between(withNewer, {withNewer.policies.first()}, false).problems.isEmpty());
    }

    // Overrides are code in the library too, and a subject may be 512 bytes: the bounds on policies (10,000)
    // and overrides (100,000) leave the library's size open. A plan whose library would pass the bound (20
    // policies of 5,000 overrides each, every subject 200 bytes: about 20 MB) is refused before anything is
    // written, naming the size and the bound; the same with 100-byte subjects passes.
    void aPlanWhoseLibraryWouldBeTooLargeIsRefused()
    {
        const auto policies = [&](int subjectBytes) {
            QVector<Policy> heavy;
            for (int p = 0; p < 20; ++p) {
                Policy tiered = policy(QStringLiteral("tier-%1").arg(p), 100);
                tiered.description.clear();
                for (int o = 0; o < 5000; ++o) {
                    QByteArray subject = "customer-" + QByteArray::number(p) + '-' + QByteArray::number(o) + '-';
                    subject.append(subjectBytes - subject.size(), 'x');
                    tiered.overrides.append({subject, false, model::SubjectOverride::Kind::Limits, 1000 + o, 0});
                }
                heavy.append(tiered);
            }
            return heavy;
        };
        const PolicyStore::ListResult stored = list();
        QElapsedTimer timer;
        timer.start();
        const PolicyPlan tooLarge = PolicyPlan::between(stored, policies(200), false);
        qInfo("a plan of 100,000 overrides of 200 bytes judged in %lld ms", timer.elapsed());
        QVERIFY(!tooLarge.problems.isEmpty());
        QVERIFY2(tooLarge.problems.last().toString().contains(QRegularExpression(
                     QStringLiteral("the library would be \\d+\\.\\d MB of code; it may be at most 16 MB"))),
                 qPrintable(tooLarge.problems.last().toString()));
        const PolicyPlan fits = PolicyPlan::between(stored, policies(100), false);
        QVERIFY2(fits.problems.isEmpty(), qPrintable(fits.problems.value(0).toString()));
    }

    void calendarIsStored()
    {
        Policy quota = policy(QStringLiteral("quota"), 1000);
        quota.algorithm = Algorithm::FixedWindow;
        quota.calendar = model::Calendar::Month;
        quota.windowMs = model::calendarNominalMs(quota.calendar);
        quota.utcOffsetMinutes = 330;
        quota.anchorDay = 29;
        QVERIFY(model::validatePolicy(quota).isEmpty());
        QVERIFY(!commit({put(quota, 0)}).failure);
        const auto stored = redisCall({"HMGET", key(":policy:quota"), "calendar", "utc_offset_minutes", "anchor_day"});
        QCOMPARE(stored.value.elements.size(), 3);
        QCOMPARE(stored.value.elements.at(0).bytes + ' ' + stored.value.elements.at(1).bytes + ' '
                     + stored.value.elements.at(2).bytes,
                 QByteArray("month 330 29"));
        QVERIFY(list().policies.first().sameDefinition(quota));
        QCOMPARE(list().policies.first().unknownFields, QStringList());
    }

    // Every definition field is one the commit script compares and audits (lua/store_commit.lua keeps its
    // own list), and one a stored policy is read back with: none is unknown to the version that wrote it.
    void everyDefinitionFieldIsStoredAndAudited()
    {
        const QByteArray script = model::luaSource(QStringLiteral("store_commit.lua"));
        const qsizetype listed = script.indexOf("local DEFINITION = {");
        const QByteArray definition = script.mid(listed, script.indexOf('}', listed) - listed);
        for (const QString &field : model::definitionFieldNames())
            QVERIFY2(field == QLatin1String("name") || definition.contains("'" + field.toUtf8() + "'"),
                     qPrintable(field));
        Policy every = policy(QStringLiteral("every"), 10);
        every.blockMs = 1000;
        every.maxDebt = 5;
        every.reserveTimeoutMs = 3000;
        every.overrides = {{"vip", false, SubjectOverride::Kind::Allow, 0, 0}};
        every.description = QStringLiteral("all the fields");
        QVERIFY(model::validatePolicy(every).isEmpty());
        QVERIFY(!commit({put(every, 0)}).failure);
        const Policy stored = list().policies.first();
        QVERIFY(stored.sameDefinition(every));
        QCOMPARE(stored.unknownFields, QStringList());
    }

    void damagedStoredDataIsReported_data()
    {
        QTest::addColumn<QByteArray>("field");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("limit text") << QByteArray("limit") << QByteArray("lots")
                                    << QStringLiteral("field \"limit\" holds \"lots\"");
        QTest::newRow("algorithm") << QByteArray("algorithm") << QByteArray("magic")
                                   << QStringLiteral("not an algorithm");
        QTest::newRow("shadow") << QByteArray("shadow") << QByteArray("yes") << QStringLiteral("not 0 or 1");
        QTest::newRow("limit zero") << QByteArray("limit") << QByteArray("0") << QStringLiteral("field \"limit\"");
        QTest::newRow("overrides not JSON") << QByteArray("overrides") << QByteArray("{partner")
                                            << QStringLiteral("field \"overrides\" holds no JSON object");
        QTest::newRow("override subject") << QByteArray("overrides") << sluice::test::js("{'a}':'deny'}")
                                          << QStringLiteral("\"a}\" is not a subject");
        QTest::newRow("calendar") << QByteArray("calendar") << QByteArray("fortnight")
                                  << QStringLiteral("field \"calendar\" holds \"fortnight\", not day, week or month");
        QTest::newRow("block_ms text") << QByteArray("block_ms") << QByteArray("soon")
                                       << QStringLiteral("field \"block_ms\" holds \"soon\", not a whole number");
        QTest::newRow("window start") << QByteArray("window_start") << QByteArray("noon")
                                      << QStringLiteral("field \"window_start\" holds \"noon\", not aligned or "
                                                        "first_call");
    }

    void damagedStoredDataIsReported()
    {
        QFETCH(QByteArray, field);
        QFETCH(QByteArray, value);
        QFETCH(QString, expected);
        QVERIFY(
            !commit({put(policy(QStringLiteral("api"), 100), 0), put(policy(QStringLiteral("web"), 10), 0)}).failure);
        QVERIFY(redisCall({"HSET", key(":policy:api"), field, value}).ok());
        // Listed apart, with what is wrong and the version a repair must expect; the healthy one still listed.
        const auto listed = list();
        QVERIFY2(!listed.failure, qPrintable(sluice::model::messageOf(listed.failure)));
        QCOMPARE(listed.policies.size(), 1);
        QCOMPARE(listed.policies.first().name, QStringLiteral("web"));
        QCOMPARE(listed.damaged.size(), 1);
        QCOMPARE(listed.damaged.first().name, QStringLiteral("api"));
        QCOMPARE(listed.damaged.first().version, 1);
        QVERIFY2(listed.damaged.first().problem.contains(expected), qPrintable(listed.damaged.first().problem));
        // Putting a definition over it at that version repairs it.
        const auto repaired = commit({put(policy(QStringLiteral("api"), 50), 1)});
        QVERIFY2(!repaired.failure, qPrintable(sluice::model::messageOf(repaired.failure)));
        const auto after = list();
        QVERIFY(after.damaged.isEmpty());
        QCOMPARE(after.policies.size(), 2);
        QCOMPARE(after.policies.first().limit, 50);
        QCOMPARE(after.policies.first().version, 2);
    }

    void wrongKeyTypeIsReported()
    {
        QVERIFY(redisCall({"SET", key(":policies"), "not a set"}).ok());
        const auto listed = list();
        QVERIFY2(sluice::model::messageOf(listed.failure).contains(QLatin1String("WRONGTYPE")),
                 qPrintable(sluice::model::messageOf(listed.failure)));
    }
};

QTEST_GUILESS_MAIN(TestPolicyStore)
#include "tst_policy_store.moc"
