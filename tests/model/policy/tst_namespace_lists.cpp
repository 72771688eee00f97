// SPDX-License-Identifier: GPL-3.0-or-later
// A namespace's allow and deny lists: how they join a policy's overrides, how CSV files are read, and
// the store against a real Redis (optimistic saves, audit entries, refusals that change nothing).
#include "model/policy/audit_log.h"
#include "model/policy/lists_store.h"
#include "redis/redis_client.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QJsonObject>
#include <QTest>
#include <QUuid>

using namespace sluice;
using model::ListsStore;
using model::SubjectOverride;

namespace {

QVector<SubjectOverride> entries(const QJsonObject &object)
{
    QString problem;
    const auto read = model::overridesFromJson(object, &problem);
    return read.value_or(QVector<SubjectOverride>());
}

} // namespace

class TestNamespaceLists : public QObject {
    Q_OBJECT

    std::unique_ptr<redis::RedisClient> m_connection;
    QString m_namespace;

    template <typename Result, typename Call> Result wait(Call call)
    {
        Result result;
        bool finished = false;
        call([&](const Result &r) {
            result = r;
            finished = true;
        });
        if (!QTest::qWaitFor([&] { return finished; }, 10000))
            result.failure = model::Failure{model::Failure::Kind::TimedOut, QStringLiteral("no answer")};
        return result;
    }
    ListsStore::CommitResult save(const QVector<SubjectOverride> &lists, qint64 expected,
                                  const QString &who = QStringLiteral("alice"))
    {
        return wait<ListsStore::CommitResult>(
            [&](auto done) { ListsStore(m_connection.get(), m_namespace).commit(lists, expected, who, this, done); });
    }
    ListsStore::ReadResult read()
    {
        return wait<ListsStore::ReadResult>(
            [&](auto done) { ListsStore(m_connection.get(), m_namespace).read(this, done); });
    }
    QByteArray key(const char *suffix) const { return '{' + m_namespace.toUtf8() + '}' + suffix; }

private Q_SLOTS:
    void init()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        m_connection = std::make_unique<redis::RedisClient>(test::optionsFor(url));
        QVERIFY(test::openAndWait(*m_connection));
        m_namespace = QStringLiteral("test-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    }

    // The longest pattern of either decides; for the same pattern the list's entry does.
    void listsJoinThePolicysOverrides_data()
    {
        QTest::addColumn<QByteArray>("subject");
        QTest::addColumn<QString>("decided");
        QTest::newRow("the policy's exact subject, longer than the list's prefix")
            << QByteArray("team-lead") << QStringLiteral("team-lead: allow");
        QTest::newRow("the same prefix in both: the list's") << QByteArray("team-x") << QStringLiteral("team-*: deny");
        QTest::newRow("the list's longer prefix") << QByteArray("team-leader") << QStringLiteral("team-lea*: allow");
        QTest::newRow("the policy's limit where no list matches")
            << QByteArray("vip") << QStringLiteral("vip: limit 50");
        QTest::newRow("nothing matches") << QByteArray("alice") << QString();
    }

    void listsJoinThePolicysOverrides()
    {
        QFETCH(QByteArray, subject);
        QFETCH(QString, decided);
        model::Policy policy;
        policy.overrides = entries({{QStringLiteral("team-lead"), QStringLiteral("allow")},
                                    {QStringLiteral("team-*"), QJsonObject{{QStringLiteral("limit"), 5.0}}},
                                    {QStringLiteral("vip"), QJsonObject{{QStringLiteral("limit"), 50.0}}}});
        const auto lists = entries({{QStringLiteral("team-*"), QStringLiteral("deny")},
                                    {QStringLiteral("team-lea*"), QStringLiteral("allow")}});
        const model::Policy joined = model::withNamespaceLists(policy, lists);
        QCOMPARE(joined.overrides.size(), 4);
        const SubjectOverride *match = model::matchingOverride(joined.overrides, subject);
        QCOMPARE(match ? model::overrideText(*match) : QString(), decided);
    }

    void csvFilesAreRead_data()
    {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<bool>("limits");
        QTest::addColumn<QString>("read"); // the rules, or the problem
        QTest::newRow("a header, CRLF, a quoted pattern with a comma and a quote")
            << QByteArray("pattern,list\r\n\"a,\"\"b\",deny\r\nops-*,allow\r\n") << false
            << QStringLiteral("a,\"b: deny; ops-*: allow");
        QTest::newRow("limits where the table takes them")
            << QByteArray("partner-x,1000,2000\nbatch-*,50\nstar\\*,deny\n") << true
            << QStringLiteral("batch-*: limit 50; partner-x: limit 1000, burst 2000; star\\*: deny");
        QTest::newRow("a later line for the same pattern replaces the earlier")
            << QByteArray("x,allow\nx,deny\n") << false << QStringLiteral("x: deny");
        QTest::newRow("a limit in a list") << QByteArray("x,allow\npartner,1000\n") << false
                                           << QStringLiteral("line 2: \"1000\" is not allow or deny");
        QTest::newRow("a subject with a brace")
            << QByteArray("a{b},deny\n") << false << QStringLiteral("line 1: \"a{b}\" is not a subject");
        QTest::newRow("a quote left open")
            << QByteArray("x,allow\n\"open,deny\n") << false << QStringLiteral("line 2: a quote is not closed");
        QTest::newRow("allow with a limit")
            << QByteArray("x,allow,5\n") << true << QStringLiteral("line 1: allow takes no limit");
        QTest::newRow("a burst of zero") << QByteArray("x,5,0\n") << true
                                         << QStringLiteral("line 1: the burst must be");
        QTest::newRow("one field") << QByteArray("x,allow\nlonely\n") << false
                                   << QStringLiteral("line 2: expected a subject or prefix");
    }

    void csvFilesAreRead()
    {
        QFETCH(QByteArray, csv);
        QFETCH(bool, limits);
        QFETCH(QString, read);
        QString problem;
        const auto rules = model::rulesFromCsv(csv, limits, &problem);
        if (!rules) {
            QVERIFY2(problem.startsWith(read), qPrintable(problem));
            return;
        }
        QStringList texts;
        for (const SubjectOverride &rule : *rules)
            texts << model::overrideText(rule);
        QCOMPARE(texts.join(QStringLiteral("; ")), read);
    }

    // Two operators save over version 1: the second is a conflict and changes nothing; every real change
    // is audited with both sides; saving what is stored audits nothing.
    void savesAreOptimisticAndAudited()
    {
        const auto first = entries({{QStringLiteral("abuser-7"), QStringLiteral("deny")}});
        QCOMPARE(read().lists.version, 0);
        QCOMPARE(save(first, 0).version, 1);
        const auto bob = entries({{QStringLiteral("abuser-*"), QStringLiteral("deny")}});
        QCOMPARE(save(bob, 1, QStringLiteral("bob")).version, 2);
        const auto late = save(entries({{QStringLiteral("ops"), QStringLiteral("allow")}}), 1, QStringLiteral("carol"));
        QVERIFY(late.failure && late.failure->kind == model::Failure::Kind::Conflict);
        QVERIFY2(late.failure->message.contains(QLatin1String("now version 2")), qPrintable(late.failure->message));
        const ListsStore::ReadResult stored = read();
        QVERIFY(!stored.failure);
        QVERIFY(stored.lists.entries == bob);
        QCOMPARE(stored.lists.updatedBy, QStringLiteral("bob"));
        QCOMPARE(save(bob, 2).version, 2); // the same entries: no new version, no audit entry

        const auto audit = wait<model::AuditLog::ReadResult>(
            [&](auto done) { model::AuditLog(m_connection.get(), m_namespace).read(QString(), 10, this, done); });
        QVERIFY2(!audit.failure, qPrintable(model::messageOf(audit.failure)));
        QCOMPARE(audit.entries.size(), 2);
        QCOMPARE(audit.entries.first().action, QStringLiteral("lists"));
        QCOMPARE(audit.entries.first().who, QStringLiteral("bob"));
        QCOMPARE(audit.entries.first().changeText(),
                 QStringLiteral("lists: removed abuser-7: deny, lists: added abuser-*: deny"));
        QCOMPARE(model::auditSubjectText(audit.entries.first()), QStringLiteral("(lists)"));
    }

    // Refused before anything is sent: a limit, more than 10,000 entries.
    void invalidListsAreRefusedUnsaved()
    {
        const auto limit = save(entries({{QStringLiteral("x"), QJsonObject{{QStringLiteral("limit"), 5.0}}}}), 0);
        QVERIFY(limit.failure && limit.failure->kind == model::Failure::Kind::Invalid);
        QVector<SubjectOverride> many;
        for (int i = 0; i <= model::list_limits::maxEntries; ++i) {
            SubjectOverride entry;
            entry.pattern = "s" + QByteArray::number(i);
            entry.kind = SubjectOverride::Kind::Deny;
            many.append(entry);
        }
        std::sort(many.begin(), many.end());
        const auto tooMany = save(many, 0);
        QVERIFY(tooMany.failure && tooMany.failure->kind == model::Failure::Kind::Invalid);
        QVERIFY2(tooMany.failure->message.contains(QLatin1String("10001 entries")),
                 qPrintable(tooMany.failure->message));
        many.removeLast();
        QCOMPARE(test::syncCommand(*m_connection, {"EXISTS", key(":lists")}).value.integer, 0);
        QCOMPARE(save(many, 0).version, 1); // 10,000 is allowed
        QCOMPARE(read().lists.entries.size(), model::list_limits::maxEntries);
    }

    // Damage is reported when read, and a save at version 0 replaces it whole.
    void damagedListsAreReportedAndReplaced()
    {
        QVERIFY(
            test::syncCommand(*m_connection, {"HSET", key(":lists"), "entries", "{\"x\": 5}", "version", "3"}).ok());
        const auto damaged = read();
        QVERIFY2(model::messageOf(damaged.failure).contains(QLatin1String("damaged")),
                 qPrintable(model::messageOf(damaged.failure)));
        QVERIFY(test::syncCommand(*m_connection, {"SET", key(":lists"), "not a hash"}).ok());
        QVERIFY2(model::messageOf(read().failure).contains(QLatin1String("WRONGTYPE")),
                 qPrintable(model::messageOf(read().failure)));
        QCOMPARE(save(entries({{QStringLiteral("ops"), QStringLiteral("allow")}}), 0).version, 1);
        QCOMPARE(read().lists.entries.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestNamespaceLists)
#include "tst_namespace_lists.moc"
