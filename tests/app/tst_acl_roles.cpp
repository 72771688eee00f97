// SPDX-License-Identifier: GPL-3.0-or-later
// The three ACL roles `sluicectl acl` prints, as real Redis users on a private server: each may do its
// job and Redis refuses it (NOPERM) everything else. Users are made from the exact printed lines, for
// two namespaces, so a role that lacks a command its job needs, or grants one it should not, fails here.

#include "model/connection/connection_session.h"
#include "model/connection/key_namespace.h"
#include "model/deploy/acl_check.h"
#include "model/deploy/acl_roles.h"
#include "model/limiter/limiter_library.h"
#include "model/limiter/lua_source.h"
#include "model/monitor/key_scanner.h"
#include "model/monitor/key_watch.h"
#include "model/monitor/server_diagnostics.h"
#include "model/monitor/top_rejected.h"
#include "model/policy/audit_log.h"
#include "redis/redis_connection.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace sluice;
using model::Algorithm;
using redis::RedisConnection;
using redis::RedisReply;
using test::CtlRun;
using test::syncCommand;

namespace {

const QString kPassword = QStringLiteral("role-secret");
const QString kOtherNamespace = QStringLiteral("teamb");

QString shown(const CtlRun &run)
{
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(run.exitCode).arg(run.out, run.err);
}

QString shown(const redis::RespValue &value)
{
    if (value.type != redis::RespValue::Type::Array)
        return value.toString();
    QStringList items;
    for (const redis::RespValue &item : value.elements)
        items << shown(item);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString shown(const RedisReply &reply)
{
    return reply.ok() ? shown(reply.value) : reply.errorText();
}

// Empty when `reply` is the decision expected, else what it is instead.
QString mismatch(const RedisReply &reply, bool allowed, qint64 remaining, const QString &policy)
{
    const QVector<redis::RespValue> &fields = reply.value.elements;
    const bool expected = reply.ok() && fields.size() >= 6 && fields.at(0).integer == (allowed ? 1 : 0)
        && fields.at(1).integer == remaining && (allowed ? fields.at(2).integer == -1 : fields.at(2).integer > 0)
        && fields.at(5).bytes == policy.toUtf8();
    if (expected)
        return {};
    return QStringLiteral("%1: expected %2 with %3 left, got %4")
        .arg(policy, allowed ? QStringLiteral("admitted") : QStringLiteral("rejected"))
        .arg(remaining)
        .arg(shown(reply));
}

// The printed ACL SETUSER line as command arguments, its password placeholder replaced.
QByteArrayList setUserCommand(const CtlRun &printed, QString *problem)
{
    const QStringList lines = printed.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList commands;
    for (const QString &line : lines)
        if (!line.startsWith(QLatin1Char('#')))
            commands << line;
    if (printed.exitCode != 0 || commands.size() != 1 || !commands.first().startsWith(QLatin1String("ACL SETUSER "))) {
        *problem = QStringLiteral("not one ACL SETUSER line: ") + shown(printed);
        return {};
    }
    const QString placeholder = QStringLiteral(">") + QLatin1String(model::kAclPasswordPlaceholder);
    QByteArrayList args;
    int placeholders = 0;
    for (const QString &word : commands.first().split(QLatin1Char(' '))) {
        if (word.startsWith(QLatin1Char('>')) || word.startsWith(QLatin1Char('#'))) {
            if (word != placeholder) {
                *problem = QStringLiteral("a password that is not the placeholder: ") + word;
                return {};
            }
            ++placeholders;
            args << (QLatin1Char('>') + kPassword).toUtf8();
        } else {
            args << word.toUtf8();
        }
    }
    if (placeholders != 1)
        *problem = QStringLiteral("%1 password placeholders").arg(placeholders);
    return args;
}

bool isNoPerm(const RedisReply &reply)
{
    return reply.failure == RedisReply::Failure::None && reply.value.isError()
        && reply.errorText().startsWith(QLatin1String("NOPERM"));
}

// The commands a Lua source runs: redis.call('X', ...), redis.pcall('X', ...), and sluice.lua's read('X', ...).
QSet<QString> commandsRunBy(const QString &luaFile)
{
    static const QRegularExpression call(QStringLiteral(R"((?:redis\.p?call|\bread)\('([A-Z]+)')"));
    QSet<QString> commands;
    auto matches = call.globalMatch(QString::fromUtf8(model::luaSource(luaFile)));
    while (matches.hasNext())
        commands.insert(matches.next().captured(1).toLower());
    return commands;
}

} // namespace

class TestAclRoles : public QObject {
    Q_OBJECT

private:
    test::RedisProcess m_server;
    std::unique_ptr<RedisConnection> m_admin;
    std::unique_ptr<redis::RedisClient> m_adminClient;
    QTemporaryDir m_dir;

    CtlRun printRole(const QString &role, const QString &ns, const QStringList &more = {}) const
    {
        return test::sluicectl(QStringList{QStringLiteral("acl"), role, QStringLiteral("--namespace"), ns} + more);
    }

    redis::ConnectionOptions optionsFor(const QString &user, int database = 0) const
    {
        redis::ConnectionOptions options = m_server.options();
        options.user = user;
        options.password = kPassword;
        options.database = database;
        return options;
    }

    // sluicectl as `user`, its password from REDISCLI_AUTH (so nothing warns about a password on the command line).
    CtlRun ctlAs(const QString &user, const QString &ns, const QStringList &args) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDISCLI_AUTH"), kPassword);
        return test::sluicectl(QStringList{QStringLiteral("--timeout"), QStringLiteral("5000"), QStringLiteral("-u"),
                                           QStringLiteral("redis://%1@127.0.0.1:%2").arg(user).arg(m_server.port()),
                                           QStringLiteral("--namespace"), ns}
                                   + args,
                               env);
    }

    RedisReply admin(const QByteArrayList &args) { return syncCommand(*m_admin, args); }

    // Stored and published as the default (unrestricted) user: the roles' own tests do it through sluicectl.
    void publishAsAdmin(const QString &ns, const QVector<model::Policy> &policies)
    {
        const QString error = test::storeAndPublish(*m_adminClient, ns, policies);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // Fixed windows turn at multiples of window_ms since the epoch: a check that needs `room` ms of one
    // window waits for the next one when this one ends sooner.
    void waitForWindowRoom(qint64 windowMs, qint64 roomMs)
    {
        const RedisReply time = admin({"TIME"});
        QVERIFY2(time.ok(), qPrintable(shown(time)));
        const qint64 nowMs = time.value.elements.at(0).toString().toLongLong() * 1000
            + time.value.elements.at(1).toString().toLongLong() / 1000;
        const qint64 leftMs = windowMs - nowMs % windowMs;
        if (leftMs < roomMs)
            QThread::msleep(static_cast<unsigned long>(leftMs + 20));
    }

    // A fresh server for each case: the library is server-wide, and each case publishes its own.
    void flushAll()
    {
        QVERIFY(admin({"FLUSHALL"}).ok());
        QVERIFY(admin({"FUNCTION", "FLUSH"}).ok());
    }

    // The dashboard's demo: two policies published, and a subject rejected twice.
    void publishDashboardDemo()
    {
        publishAsAdmin(QStringLiteral("sluice"),
                       {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 3600000),
                        test::makePolicy(QStringLiteral("jobs"), Algorithm::Concurrency, 2, 60000)});
        for (int call = 0; call < 7; ++call)
            QVERIFY(
                admin({"FCALL", "sluice_acquire", "1", test::bucketKey(QStringLiteral("api"), "scraper"), "api"}).ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_admin = std::make_unique<RedisConnection>(m_server.options());
        QVERIFY(test::openAndWait(*m_admin));
        m_adminClient = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_adminClient));
        for (const QString &ns : {QStringLiteral("sluice"), kOtherNamespace}) {
            for (const QString &role : model::aclRoleNames()) {
                QString problem;
                const QByteArrayList command = setUserCommand(printRole(role, ns), &problem);
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
                QCOMPARE(command.at(2), (ns + QLatin1Char('-') + role).toUtf8()); // the default user name
                const RedisReply created = admin(command);
                QVERIFY2(created.ok(), qPrintable(shown(created)));
            }
        }
    }

    void init() { flushAll(); }

    void printsOneRuleLinePerRole()
    {
        const CtlRun service = printRole(QStringLiteral("service"), QStringLiteral("sluice"));
        QCOMPARE(service.exitCode, 0);
        QVERIFY2(service.out.startsWith(QLatin1String("# sluice-service (service): ")), qPrintable(service.out));
        QVERIFY2(service.out.contains(QLatin1String("\nACL SETUSER sluice-service reset on >CHANGE-ME resetchannels "
                                                    "~sluice:* -@all +ping +client|setname +fcall +fcall_ro ")),
                 qPrintable(service.out));
        const CtlRun named = printRole(
            QStringLiteral("dashboard"), kOtherNamespace,
            {QStringLiteral("--user"), QStringLiteral("grafana"), QStringLiteral("-n"), QStringLiteral("3")});
        QCOMPARE(named.exitCode, 0);
        QVERIFY2(named.out.contains(QLatin1String("ACL SETUSER grafana reset on >CHANGE-ME resetchannels "
                                                  "%R~teamb:* %R~{teamb}:* -@all ")),
                 qPrintable(named.out));
        QVERIFY2(named.out.trimmed().endsWith(QLatin1String(" +select|3")), qPrintable(named.out));

        const CtlRun unknown = printRole(QStringLiteral("admin"), QStringLiteral("sluice"));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(
            unknown.err.contains(QLatin1String("unknown role \"admin\"; the roles are: service, dashboard, operator")),
            qPrintable(unknown.err));
        QVERIFY(unknown.out.isEmpty());
        QCOMPARE(test::sluicectl({QStringLiteral("acl")}).exitCode, 2);
        QCOMPARE(printRole(QStringLiteral("service"), QStringLiteral("a{b")).exitCode, 2);
        QCOMPARE(printRole(QStringLiteral("service"), QStringLiteral("sluice"),
                           {QStringLiteral("--user"), QStringLiteral("two words")})
                     .exitCode,
                 2);
    }

    // No role of one namespace reaches another namespace's keys: the operator role of "tenA" took the whole of
    // a namespace named "tenA-fire". Over names that are prefixes, suffixes and case variants of one another,
    // every key pattern of every role of each namespace (each a prefix and '*') matches none of the keys of any
    // other accepted namespace: its buckets, admin keys and test-fire keys, in every seed layout.
    void rolesOfOneNamespaceReachNoOther()
    {
        QStringList names;
        for (const QString &stem : {QStringLiteral("a"), QStringLiteral("tenA"), QStringLiteral("sluice")})
            for (const QString &tail :
                 {QString(), QStringLiteral("-fire"), QStringLiteral("-fire-fire"), QStringLiteral("-FIRE"),
                  QStringLiteral("-f"), QStringLiteral("_fire"), QStringLiteral(".fire"), QStringLiteral("-"),
                  QStringLiteral("b"), QStringLiteral("-fire.x"), QStringLiteral("-fire-")})
                names << stem + tail << stem.toUpper() + tail;
        QStringList accepted;
        for (const QString &name : names)
            if (!model::namespaceProblem(name))
                accepted << name;
        QVERIFY(!accepted.contains(QStringLiteral("tenA-fire")) && !accepted.contains(QStringLiteral("a-FIRE")));
        QVERIFY(accepted.contains(QStringLiteral("tenA-fire-")) && accepted.contains(QStringLiteral("a-fire.x")));
        const auto keysOf = [](const QString &ns) {
            const QString fire = ns + QStringLiteral("-fire:run1:1:");
            return QStringList{ns + QStringLiteral(":api:{alice}"),
                               QLatin1Char('{') + ns + QStringLiteral("}:policies"),
                               QLatin1Char('{') + ns + QStringLiteral("}:audit"),
                               fire + QStringLiteral("api:{alice}"),
                               QLatin1Char('{') + fire + QStringLiteral("alice}:tokens"),
                               QStringLiteral("request_rate_limiter.{") + fire + QStringLiteral("alice}.tokens")};
        };
        int checked = 0;
        for (const QString &ns : accepted) {
            for (const model::AclRole role :
                 {model::AclRole::Service, model::AclRole::Dashboard, model::AclRole::Operator}) {
                for (QString rule : model::aclRules(role, ns, 0)) {
                    if (!rule.startsWith(QLatin1Char('~')) && !rule.startsWith(QLatin1String("%R~")))
                        continue;
                    rule = rule.section(QLatin1Char('~'), 1);
                    // Each pattern a literal prefix then '*': what it reaches is what starts with the prefix.
                    QVERIFY2(rule.endsWith(QLatin1Char('*'))
                                 && !rule.chopped(1).contains(QRegularExpression(QStringLiteral("[*?\\[\\]\\\\]"))),
                             qPrintable(rule));
                    const QString prefix = rule.chopped(1);
                    for (const QString &other : accepted) {
                        if (other == ns)
                            continue;
                        for (const QString &key : keysOf(other)) {
                            QVERIFY2(!key.startsWith(prefix),
                                     qPrintable(QStringLiteral("%1's %2 role (~%3) reaches %4's key %5")
                                                    .arg(ns, model::aclRoleName(role), rule, other, key)));
                            ++checked;
                        }
                    }
                }
            }
        }
        qInfo("%lld namespaces, %d pattern-and-key pairs: each role reaches its own namespace only",
              static_cast<long long>(accepted.size()), checked);
    }

    void globsReachPrefixesAsRedisMatchesKeys_data()
    {
        QTest::addColumn<QByteArray>("pattern");
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<bool>("reaches");
        QTest::newRow("older operator's fire pattern") << QByteArray("tenA-fire:*") << QByteArray("tenA-fire:") << true;
        QTest::newRow("buckets of a prefix namespace") << QByteArray("tenA:*") << QByteArray("tenA-fire:") << false;
        QTest::newRow("question mark") << QByteArray("ten?-fire:*") << QByteArray("tenA-fire:") << true;
        QTest::newRow("range") << QByteArray("[a-t]enA:*") << QByteArray("tenA:") << true;
        QTest::newRow("negated class") << QByteArray("[^t]enA:*") << QByteArray("tenA:") << false;
        QTest::newRow("escaped brace") << QByteArray("\\{tenA}:*") << QByteArray("{tenA}:") << true;
        QTest::newRow("star inside") << QByteArray("t*:x") << QByteArray("tenA:") << true;
        QTest::newRow("too short, no star") << QByteArray("te") << QByteArray("tenA:") << false;
        QTest::newRow("exactly the prefix") << QByteArray("tenA:") << QByteArray("tenA:") << true;
        QTest::newRow("case matters") << QByteArray("TENA:*") << QByteArray("tenA:") << false;
        QTest::newRow("everything") << QByteArray("*") << QByteArray("{x}:") << true;
    }

    void globsReachPrefixesAsRedisMatchesKeys()
    {
        QFETCH(QByteArray, pattern);
        QFETCH(QByteArray, prefix);
        QFETCH(bool, reaches);
        QCOMPARE(model::globReachesPrefix(pattern, prefix), reaches);
        if (!reaches)
            return;
        // Redis agrees: a key that starts with the prefix and matches exists (the prefix, then "x", tried).
        bool redisMatches = false;
        for (const QByteArray &key : {prefix, prefix + "x", prefix + "x:x"}) {
            QVERIFY(admin({"SET", key, "1"}).ok());
            redisMatches = redisMatches || !admin({"KEYS", pattern}).value.elements.isEmpty();
        }
        QVERIFY2(redisMatches, pattern.constData());
    }

    // acl check: today's users of two namespaces are each confined to their own; a user made from older
    // acl output (an operator of tenA with ~tenA-fire:*) beside a namespace named tenA-fire (which Sluice no
    // longer accepts, published before) reaches both, and so does a user written by hand with ~t*.
    void aclCheckFindsUsersThatReachAnotherNamespace()
    {
        publishAsAdmin(QStringLiteral("sluice"),
                       {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 60000)});
        publishAsAdmin(kOtherNamespace, {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 60000)});
        const QStringList asAdmin{QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("acl"),
                                  QStringLiteral("check")};
        const CtlRun clean = test::sluicectl(asAdmin);
        QVERIFY2(clean.exitCode == 0, qPrintable(clean.out + clean.err));
        for (const QString &ns : {QStringLiteral("sluice"), kOtherNamespace})
            for (const QString &role : model::aclRoleNames())
                QVERIFY2(clean.out.contains(QRegularExpression(
                             QStringLiteral("\n%1-%2 +%1 +ok\n").arg(QRegularExpression::escape(ns), role))),
                         qPrintable(clean.out));
        QVERIFY2(clean.out.contains(QRegularExpression(QStringLiteral("\ndefault +every key +an administrator"))),
                 qPrintable(clean.out));

        const model::LibraryOwner legacy{QStringLiteral("tenA-fire"), 0};
        const model::LimiterLibrary library = model::LimiterLibrary::build(
            {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 5, 60000)}, {}, legacy, 1);
        QVERIFY(admin({"FUNCTION", "LOAD", "REPLACE", library.source}).ok());
        QVERIFY(admin({"ACL", "SETUSER", "tenA-operator", "reset", "on", ">x", "~tenA:*", "~{tenA}:*", "~tenA-fire:*",
                       "~{tenA-fire:*", "-@all", "+ping"})
                    .ok());
        QVERIFY(admin({"ACL", "SETUSER", "wide", "reset", "on", ">x", "%R~t*", "-@all", "+ping"}).ok());
        const auto cleanUp = qScopeGuard([&] { admin({"ACL", "DELUSER", "tenA-operator", "wide"}); });
        const CtlRun found
            = test::sluicectl(asAdmin + QStringList{QStringLiteral("--namespace"), QStringLiteral("tenA")});
        QVERIFY2(found.exitCode == 12, qPrintable(found.out + found.err));
        QVERIFY2(found.out.contains(QRegularExpression(
                     QStringLiteral("\ntenA-operator +tenA, tenA-fire +OVERLAPS: ~tenA:\\* reaches tenA:\\*; "
                                    "~tenA-fire:\\* reaches tenA-fire:\\*\n"))),
                 qPrintable(found.out));
        QVERIFY2(found.out.contains(QRegularExpression(QStringLiteral("\nwide +teamb, tenA, tenA-fire +OVERLAPS"))),
                 qPrintable(found.out));
        QVERIFY2(found.out.contains(QRegularExpression(QStringLiteral("\nsluice-operator +sluice +ok\n"))),
                 qPrintable(found.out));
        const CtlRun json = test::sluicectl(
            asAdmin + QStringList{QStringLiteral("--namespace"), QStringLiteral("tenA"), QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 12);
        QVERIFY2(json.out.contains(QLatin1String("\"user\":\"wide\"")), qPrintable(json.out));

        // A service's user may not list the ACL: a clear error, not a verdict.
        const CtlRun refused = ctlAs(QStringLiteral("sluice-service"), QStringLiteral("sluice"),
                                     {QStringLiteral("acl"), QStringLiteral("check")});
        QVERIFY2(refused.exitCode != 0 && refused.exitCode != 12, qPrintable(refused.err));
    }

    // What the Lua runs is what Redis checks against the caller: every command a source names must be in
    // the roles that run it (a command built at run time, like store_commit.lua's HSET, is listed by hand).
    void rolesCoverTheCommandsTheLuaRuns()
    {
        const auto allowed = [](model::AclRole role) {
            QSet<QString> commands;
            for (const QString &rule : model::aclRules(role, QStringLiteral("sluice")))
                if (rule.startsWith(QLatin1Char('+')))
                    commands.insert(rule.mid(1));
            return commands;
        };
        const QSet<QString> service = allowed(model::AclRole::Service);
        const QSet<QString> operatorRole = allowed(model::AclRole::Operator);
        for (const QString &file : {QStringLiteral("sluice.lua"), QStringLiteral("clock.lua")}) {
            const QSet<QString> runs = commandsRunBy(file);
            QVERIFY2(!runs.isEmpty(), qPrintable(file));
            for (const QString &command : runs) {
                QVERIFY2(service.contains(command),
                         qPrintable(QStringLiteral("service lacks %1 (%2)").arg(command, file)));
                QVERIFY2(operatorRole.contains(command),
                         qPrintable(QStringLiteral("operator lacks %1 (%2)").arg(command, file)));
            }
        }
        for (const QString &file :
             {QStringLiteral("store_commit.lua"), QStringLiteral("lists_commit.lua"),
              QStringLiteral("library_record.lua"), QStringLiteral("bucket_reset_record.lua"),
              QStringLiteral("compat_scg_token_bucket.lua"), QStringLiteral("compat_fixed_window_counter.lua"),
              QStringLiteral("compat_ms_token_bucket.lua")}) {
            for (const QString &command : commandsRunBy(file))
                QVERIFY2(operatorRole.contains(command),
                         qPrintable(QStringLiteral("operator lacks %1 (%2)").arg(command, file)));
        }
    }

    void serviceCallsTheLimiterOnItsOwnKeysOnly_data()
    {
        QTest::addColumn<QString>("ns");
        QTest::addColumn<QString>("other");
        QTest::newRow("sluice") << QStringLiteral("sluice") << kOtherNamespace;
        QTest::newRow("teamb") << kOtherNamespace << QStringLiteral("sluice");
    }

    void serviceCallsTheLimiterOnItsOwnKeysOnly()
    {
        QFETCH(QString, ns);
        QFETCH(QString, other);
        using test::makePolicy;
        const qint64 hour = 3600000;
        publishAsAdmin(ns,
                       {makePolicy(QStringLiteral("tb"), Algorithm::TokenBucket, 3, hour),
                        makePolicy(QStringLiteral("gc"), Algorithm::Gcra, 3, hour, 3),
                        makePolicy(QStringLiteral("lk"), Algorithm::LeakyBucket, 3, hour, 3),
                        makePolicy(QStringLiteral("fw"), Algorithm::FixedWindow, 3, hour),
                        makePolicy(QStringLiteral("sw"), Algorithm::SlidingWindow, 3, hour),
                        makePolicy(QStringLiteral("sl"), Algorithm::SlidingLog, 3, hour),
                        makePolicy(QStringLiteral("cc"), Algorithm::Concurrency, 3, hour),
                        makePolicy(QStringLiteral("fw-roll"), Algorithm::FixedWindow, 1, 1000),
                        makePolicy(QStringLiteral("sl-roll"), Algorithm::SlidingLog, 1, 300)});
        RedisConnection service(optionsFor(ns + QStringLiteral("-service")));
        QVERIFY2(test::openAndWait(service), qPrintable(service.lastError()));
        const auto key = [&ns](const char *policy, const char *subject) {
            return test::bucketKey(QLatin1String(policy), subject, ns);
        };
        const model::LibraryOwner owner{ns, 0};
        const auto fn = [&owner](const char *verb) { return owner.function(verb); };
        const auto acquire = [&](const char *policy, const char *subject) {
            return syncCommand(service, {"FCALL", fn("acquire"), "1", key(policy, subject), policy});
        };

        // Exact decisions from every algorithm: 3 admitted, then a rejection; a peek consumes nothing.
        waitForWindowRoom(hour, 5000);
        QByteArray lease;
        qint64 leaseAtMs = 0;
        for (const char *policy : {"tb", "gc", "lk", "fw", "sw", "sl", "cc"}) {
            const QString name = QLatin1String(policy);
            for (int call = 1; call <= 3; ++call) {
                const RedisReply reply = acquire(policy, "alice");
                const QString wrong = mismatch(reply, true, 3 - call, name);
                QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
                if (name == QLatin1String("cc") && call == 1) {
                    lease = reply.value.elements.at(6).bytes;
                    leaseAtMs = QDateTime::currentMSecsSinceEpoch();
                }
            }
            QString wrong = mismatch(acquire(policy, "alice"), false, 0, name);
            QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
            wrong = mismatch(syncCommand(service, {"FCALL_RO", fn("peek"), "1", key(policy, "alice"), policy}), false,
                             0, name);
            QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        }
        // Another caller cannot release it by guessing: ids built from the time and a small sequence
        // number, as they used to be, name no lease.
        for (qint64 ms = leaseAtMs - 50; ms <= leaseAtMs; ++ms) {
            for (int sequence = 1; sequence <= 3; ++sequence) {
                const QByteArray guess = QByteArray::number(ms) + '-' + QByteArray::number(sequence) + ":1";
                const RedisReply guessed
                    = syncCommand(service, {"FCALL", fn("release"), "1", key("cc", "alice"), "cc", guess});
                QVERIFY2(!guessed.ok() || guessed.value.integer != 1, guess.constData());
            }
        }
        QString full = mismatch(acquire("cc", "alice"), false, 0, QStringLiteral("cc"));
        QVERIFY2(full.isEmpty(), qPrintable(full));
        // A lease released by its holder frees its place at once.
        const RedisReply released
            = syncCommand(service, {"FCALL", fn("release"), "1", key("cc", "alice"), "cc", lease});
        QVERIFY2(released.ok() && released.value.integer == 1, qPrintable(shown(released)));
        QString wrong = mismatch(acquire("cc", "alice"), true, 0, QStringLiteral("cc"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        // Several policies in one call, all or nothing.
        wrong = mismatch(
            syncCommand(service, {"FCALL", fn("acquire"), "2", key("tb", "bob"), key("fw", "bob"), "tb", "fw", "2"}),
            true, 1, QStringLiteral("tb"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        // The paths that run only when time moves on: a fixed window folding its previous window into its
        // totals, a sliding log dropping entries that ended.
        const RedisReply first = acquire("fw-roll", "carol");
        wrong = mismatch(first, true, 0, QStringLiteral("fw-roll"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        QThread::msleep(static_cast<unsigned long>(first.value.elements.at(3).integer + 20));
        wrong = mismatch(acquire("fw-roll", "carol"), true, 0, QStringLiteral("fw-roll"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        wrong = mismatch(acquire("sl-roll", "carol"), true, 0, QStringLiteral("sl-roll"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        QThread::msleep(350);
        wrong = mismatch(acquire("sl-roll", "carol"), true, 0, QStringLiteral("sl-roll"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        wrong = mismatch(acquire("sl-roll", "carol"), false, 0, QStringLiteral("sl-roll"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        // Never on a policy's bucket: the sluice_check that refilled a drained subject is refused, and the
        // bucket stays as it was, drained.
        const QByteArray drained = admin({"DUMP", key("tb", "alice")}).value.bytes;
        const RedisReply refill = syncCommand(
            service, {"FCALL", fn("check"), "1", key("tb", "alice"), "token_bucket", "1000000000", "1", "1000000000"});
        QVERIFY2(refill.value.isError() && refill.errorText().contains(QLatin1String("where policies keep")),
                 qPrintable(shown(refill)));
        QCOMPARE(admin({"DUMP", key("tb", "alice")}).value.bytes, drained);
        wrong = mismatch(acquire("tb", "alice"), false, 0, QStringLiteral("tb"));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        // Parameters of its own, on its own keys (behind `~`, apart from every policy's buckets); the library's
        // bookkeeping functions need no key.
        const RedisReply checked
            = syncCommand(service, {"FCALL", fn("check"), "1", key("~own", "dave"), "token_bucket", "5", "1000", "5"});
        QVERIFY2(checked.ok() && checked.value.elements.value(0).integer == 1, qPrintable(shown(checked)));
        for (const char *verb : {"version", "stats"})
            QVERIFY2(syncCommand(service, {"FCALL_RO", fn(verb), "0"}).ok(), verb);
        // Nothing of the admin data, the server or the code.
        const QByteArray admin = '{' + ns.toUtf8() + '}';
        const QVector<QByteArrayList> refused{
            {"SMEMBERS", admin + ":policies"},
            {"HGETALL", admin + ":policy:tb"},
            {"HSET", admin + ":policy:tb", "limit", "1000000"},
            {"XADD", admin + ":audit", "*", "who", "service"},
            {"HGETALL", admin + ":library"},
            {"FCALL", fn("acquire"), "1", admin + ":policies", "tb"},
            {"FUNCTION", "LOAD", "REPLACE", model::luaSource(QStringLiteral("clock.lua"))},
            {"FUNCTION", "FLUSH"},
            {"FUNCTION", "DELETE", owner.libraryName()},
            {"FUNCTION", "LIST", "WITHCODE"}, // the code holds the secret lease ids are made with
            {"EVAL", "return 1", "0"},
            {"SCRIPT", "LOAD", "return 1"},
            {"KEYS", "*"},
            {"SCAN", "0"},
            {"INFO"},
            {"CONFIG", "GET", "save"},
            {"DEL", key("tb", "alice")},
            {"FLUSHALL"},
            {"SELECT", "1"},
            // Another namespace's buckets, through the limiter or directly.
            {"FCALL", fn("acquire"), "1", test::bucketKey(QStringLiteral("tb"), "alice", other), "tb"},
            {"FCALL_RO", fn("peek"), "1", test::bucketKey(QStringLiteral("tb"), "alice", other), "tb"},
            {"GET", test::bucketKey(QStringLiteral("tb"), "alice", other)},
            {"SET", test::bucketKey(QStringLiteral("tb"), "alice", other), "x"},
        };
        for (const QByteArrayList &command : refused) {
            const RedisReply reply = syncCommand(service, command);
            QVERIFY2(isNoPerm(reply),
                     qPrintable(QString::fromUtf8(command.first() + ' ' + command.value(1)) + QStringLiteral(": ")
                                + shown(reply)));
        }
        // What Redis cannot stop: a caller allowed to run the limiter on its keys may write them directly
        // (docs/user-guide.md#acl-roles).
        const RedisReply direct = syncCommand(service, {"SET", key("tb", "mallory"), "anything"});
        QVERIFY2(direct.ok(), qPrintable(shown(direct)));
        QCOMPARE(service.state(), RedisConnection::State::Ready);
    }

    // ACL has no database rule: the role names the one database its user may SELECT.
    void serviceIsConfinedToItsDatabase()
    {
        QString problem;
        const QByteArrayList command
            = setUserCommand(printRole(QStringLiteral("service"), QStringLiteral("sluice"),
                                       {QStringLiteral("--user"), QStringLiteral("db2-service"), QStringLiteral("-n"),
                                        QStringLiteral("2")}),
                             &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(admin(command).ok());
        RedisConnection inTwo(optionsFor(QStringLiteral("db2-service"), 2));
        QVERIFY2(test::openAndWait(inTwo), qPrintable(inTwo.lastError()));
        QVERIFY(syncCommand(inTwo, {"PING"}).ok());
        QVERIFY(isNoPerm(syncCommand(inTwo, {"SELECT", "3"})));
        RedisConnection inThree(optionsFor(QStringLiteral("db2-service"), 3));
        QVERIFY(!test::openAndWait(inThree));
        QVERIFY2(inThree.lastError().contains(QLatin1String("NOPERM")), qPrintable(inThree.lastError()));
    }

    // Redis's latency spikes for the dashboard and the operator; the slowlog, which shows every tenant's
    // arguments, for the operator only, and then without the arguments; the service role reads neither.
    void latencyForBothRolesAndTheSlowlogForTheOperatorOnly()
    {
        const auto restore = qScopeGuard([this] {
            admin({"CONFIG", "SET", "latency-monitor-threshold", "0"});
            admin({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
        });
        QVERIFY(admin({"CONFIG", "SET", "latency-monitor-threshold", "1"}).ok());
        QVERIFY(admin({"CONFIG", "SET", "slowlog-log-slower-than", "0"}).ok());
        QVERIFY(admin({"SLOWLOG", "RESET"}).ok());
        QVERIFY(admin({"LATENCY", "RESET"}).ok());
        // A command of some milliseconds, whose arguments hold a subject no other tenant may see.
        const RedisReply slow
            = admin({"EVAL", "local i = 0 while i < 3000000 do i = i + 1 end return 'tenant-b:secret-subject'", "0"});
        QVERIFY2(slow.ok(), qPrintable(shown(slow)));
        const auto readAs = [this](const QString &user) {
            redis::RedisClient client(optionsFor(user));
            std::optional<model::ServerDiagnostics> read;
            if (!test::openAndWait(client))
                return read;
            model::ServerDiagnosticsPoller poller(&client, 60000);
            QObject::connect(&poller, &model::ServerDiagnosticsPoller::updated,
                             [&read](const model::ServerDiagnostics &diagnostics) { read = diagnostics; });
            poller.start();
            test::spinUntil([&read] { return read.has_value(); }, 5000);
            return read;
        };
        const auto operatorRead = readAs(QStringLiteral("sluice-operator"));
        QVERIFY(operatorRead);
        QCOMPARE(operatorRead->latencyThresholdMs, std::optional<qint64>(1));
        QVERIFY2(operatorRead->latencyProblem.isEmpty(), qPrintable(operatorRead->latencyProblem));
        QVERIFY(!operatorRead->latency.isEmpty());
        QCOMPARE(operatorRead->latency.first().event, QStringLiteral("command"));
        QVERIFY(operatorRead->latency.first().latestMs >= 1);
        QVERIFY2(operatorRead->slowlogProblem.isEmpty(), qPrintable(operatorRead->slowlogProblem));
        QVERIFY(!operatorRead->slowest.isEmpty());
        QCOMPARE(operatorRead->slowest.first().command, QStringLiteral("EVAL"));
        QVERIFY(operatorRead->slowest.first().durationUs >= 1000);
        for (const model::SlowCommand &command : operatorRead->slowest)
            QVERIFY2(!command.command.contains(QLatin1String("secret")), qPrintable(command.command));

        const auto dashboardRead = readAs(QStringLiteral("sluice-dashboard"));
        QVERIFY(dashboardRead);
        QVERIFY2(dashboardRead->latencyProblem.isEmpty(), qPrintable(dashboardRead->latencyProblem));
        QVERIFY(!dashboardRead->latency.isEmpty());
        QVERIFY(!dashboardRead->latencyThresholdMs); // no CONFIG GET for the dashboard
        QVERIFY(dashboardRead->slowest.isEmpty());
        QVERIFY2(dashboardRead->slowlogProblem.contains(QLatin1String("operator role")),
                 qPrintable(dashboardRead->slowlogProblem));

        const auto serviceRead = readAs(QStringLiteral("sluice-service"));
        QVERIFY(serviceRead);
        QVERIFY(serviceRead->latency.isEmpty() && serviceRead->slowest.isEmpty());
        QVERIFY2(serviceRead->latencyProblem.contains(QLatin1String("may not read")),
                 qPrintable(serviceRead->latencyProblem));
    }

    void dashboardReadsWhatTheDashboardShows()
    {
        const QString ns = QStringLiteral("sluice");
        publishDashboardDemo();
        const QString user = QStringLiteral("sluice-dashboard");

        // sluicectl's reads.
        const CtlRun policies = ctlAs(user, ns, {QStringLiteral("policies")});
        QVERIFY2(policies.exitCode == 0 && policies.out.contains(QLatin1String("jobs")), qPrintable(shown(policies)));
        const CtlRun status = ctlAs(user, ns, {QStringLiteral("status"), QStringLiteral("--json")});
        QVERIFY2(status.exitCode == 0 && status.out.contains(QLatin1String("\"current\"")), qPrintable(shown(status)));
        const CtlRun history = ctlAs(user, ns, {QStringLiteral("history")});
        QVERIFY2(history.exitCode == 0 && history.out.contains(QLatin1String("publish")), qPrintable(shown(history)));
        const CtlRun keys = ctlAs(user, ns, {QStringLiteral("keys"), QStringLiteral("--json")});
        QVERIFY2(keys.exitCode == 0 && keys.out.contains(QLatin1String("\"subject\":\"scraper\"")),
                 qPrintable(shown(keys)));
        QVERIFY2(keys.out.contains(QLatin1String("\"rejected\":2")), qPrintable(keys.out));
        const CtlRun watch = ctlAs(user, ns,
                                   {QStringLiteral("watch"), QStringLiteral("--duration"), QStringLiteral("1"),
                                    QStringLiteral("--interval"), QStringLiteral("250")});
        QVERIFY2(watch.exitCode == 0 && watch.out.contains(QLatin1String("api")), qPrintable(shown(watch)));
        // The Prometheus exporter reads as the dashboard does: every figure, no error, nothing refused.
        const CtlRun metrics
            = ctlAs(user, ns, {QStringLiteral("metrics"), QStringLiteral("--top"), QStringLiteral("5")});
        QVERIFY2(metrics.exitCode == 0 && metrics.err.isEmpty(), qPrintable(shown(metrics)));
        for (const char *line :
             {"sluice_up{namespace=\"sluice\"} 1\n", "sluice_allowed_total{namespace=\"sluice\",policy=\"api\"} 5\n",
              "sluice_rejected_total{namespace=\"sluice\",policy=\"api\"} 2\n",
              "sluice_subject_rejected_total{namespace=\"sluice\",policy=\"api\",subject=\"scraper\"} 2\n",
              "sluice_scrape_errors_total{namespace=\"sluice\"} 0\n"})
            QVERIFY2(metrics.out.contains(QLatin1String(line)), line);
        QVERIFY2(!metrics.out.contains(QLatin1String("sluice_primary_persistence")), "persistence is not known to it");
        QVERIFY2(!(policies.err + status.err + history.err + keys.err + watch.err).contains(QLatin1String("NOPERM")),
                 "a read was refused");

        // The dashboard's own model, as a read-only profile holds it.
        model::ConnectionProfile profile;
        profile.ns = ns;
        profile.readOnly = true;
        model::ConnectionSession session(profile, optionsFor(user));
        session.start();
        QTRY_VERIFY_WITH_TIMEOUT(session.monitor()->hasStatus(), 10000);
        QVERIFY2(session.monitor()->problem().isEmpty(), qPrintable(session.monitor()->problem()));
        QVERIFY(!session.monitor()->status().rdbKnown); // CONFIG GET is left out of the role on purpose
        QTRY_VERIFY_WITH_TIMEOUT(session.libraryWatch()->checks() > 0, 10000);
        const model::DeploymentStatus deployed = session.libraryWatch()->lastReport().status;
        QVERIFY2(!deployed.failure, qPrintable(model::messageOf(deployed.failure)));
        QCOMPARE(deployed.nodes.size(), 1);
        QCOMPARE(deployed.nodes.first().state, model::NodeLibrary::State::Current);
        QTRY_VERIFY_WITH_TIMEOUT(session.rates()->policies().contains(QStringLiteral("api")), 10000);
        QVERIFY2(session.rates()->lastSample().problems.isEmpty(),
                 qPrintable(session.rates()->lastSample().problems.join(QLatin1Char('\n'))));

        // The dashboard's readers on a connection of the same user (the session hands out no client).
        redis::RedisClient sameUser(optionsFor(user));
        QVERIFY(test::openAndWait(sameUser));
        redis::RedisClient *client = &sameUser;
        model::TopRejectedPoller top(client, model::LibraryOwner{ns, 0});
        top.setPolicy(QStringLiteral("api"));
        top.pollNow();
        QTRY_VERIFY_WITH_TIMEOUT(top.last().nowMs > 0 || !top.last().problems.isEmpty(), 10000);
        QVERIFY2(top.last().problems.isEmpty(), qPrintable(top.last().problems.join(QLatin1Char('\n'))));
        QVERIFY(top.last().readings.cbegin()->subjects.contains("scraper"));

        model::KeyScanner scanner(client, ns);
        QVector<model::FoundBucket> found;
        connect(&scanner, &model::KeyScanner::found, this,
                [&found](const QVector<model::FoundBucket> &buckets) { found += buckets; });
        QCOMPARE(sluice::model::messageOf(scanner.start({})), QString());
        scanner.fetch(50);
        QTRY_VERIFY_WITH_TIMEOUT(!scanner.isFetching(), 10000);
        QVERIFY2(scanner.problems().isEmpty(), qPrintable(scanner.problems().join(QLatin1Char('\n'))));
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first().subject, QByteArray("scraper"));

        model::KeyWatch watchList(client, model::LibraryOwner{ns, 0});
        QCOMPARE(model::messageOf(watchList.addSubject(QStringLiteral("api"), "scraper")), QString());
        const int watched = watchList.keys().last().id;
        watchList.pollNow();
        QTRY_VERIFY_WITH_TIMEOUT(watchList.rounds() > 0, 10000);
        QVERIFY2(watchList.key(watched)->problem.isEmpty(), qPrintable(watchList.key(watched)->problem));
        QCOMPARE(watchList.key(watched)->samples.last().rejected, quint64(2));

        const auto audit = test::awaitCallback<model::AuditLog::ReadResult>(
            [&](QObject *context, auto done) { model::AuditLog(client, ns).read({}, 50, context, done); },
            {{}, model::Failure{model::Failure::Kind::TimedOut, QStringLiteral("no answer")}, true});
        QVERIFY2(!audit.failure, qPrintable(model::messageOf(audit.failure)));
        QVERIFY(audit.entries.size() >= 3);
    }

    // Every write the dashboard could try is refused by Redis itself, and nothing changes.
    void dashboardWritesNothing()
    {
        const QString ns = QStringLiteral("sluice");
        const QString user = QStringLiteral("sluice-dashboard");
        const QByteArray apiKey = test::bucketKey(QStringLiteral("api"), "scraper");
        publishDashboardDemo();
        // A version 2, so a rollback to version 1 would change something.
        const QString stored = test::storePolicy(
            *m_adminClient, ns, test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 6, 3600000));
        QVERIFY2(stored.isEmpty(), qPrintable(stored));
        const QString file = m_dir.filePath(QStringLiteral("dashboard.json"));
        QVERIFY(test::writeFile(file,
                                test::js("{'policies': [{'name': 'api', 'algorithm': 'token_bucket', "
                                         "'limit': 500, 'window_ms': 3600000}]}")));
        const QVector<QStringList> writes{
            {QStringLiteral("apply"), file},
            {QStringLiteral("publish")},
            {QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("1")},
            {QStringLiteral("reset-key"), QStringLiteral("api"), QStringLiteral("scraper")},
            {QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice")},
            {QStringLiteral("fire"), QStringLiteral("api"), QStringLiteral("--rate"), QStringLiteral("10"),
             QStringLiteral("--duration"), QStringLiteral("0.2")},
        };
        for (const QStringList &write : writes) {
            const CtlRun run = ctlAs(user, ns, write);
            QVERIFY2(run.exitCode != 0 && run.err.contains(QLatin1String("NOPERM")), qPrintable(shown(run)));
        }
        RedisConnection dashboard(optionsFor(user));
        QVERIFY(test::openAndWait(dashboard));
        const QVector<QByteArrayList> refused{
            {"SET", apiKey, "x"},
            {"DEL", apiKey},
            {"FCALL", "sluice_acquire", "1", apiKey, "api"},
            {"HSET", "{sluice}:policy:api", "limit", "500"},
            {"EVAL", "return 1", "0"},
            {"FUNCTION", "FLUSH"},
            {"CONFIG", "GET", "masterauth"}, // CONFIG GET reads secrets too: left out of the role
            {"GET", test::bucketKey(QStringLiteral("api"), "scraper", kOtherNamespace)},
            {"SMEMBERS", "{teamb}:policies"},
        };
        for (const QByteArrayList &command : refused) {
            const RedisReply reply = syncCommand(dashboard, command);
            QVERIFY2(isNoPerm(reply),
                     qPrintable(QString::fromUtf8(command.first()) + QStringLiteral(": ") + shown(reply)));
        }
        QCOMPARE(admin({"HGET", "{sluice}:policy:api", "limit"}).value.bytes, QByteArray("6"));
        QCOMPARE(admin({"EXISTS", apiKey}).value.integer, 1);
        QCOMPARE(admin({"XLEN", "{sluice}:audit"}).value.integer, 4); // two creates, a publish, an update
    }

    void operatorAppliesPublishesAndResets()
    {
        const QString ns = QStringLiteral("sluice");
        const QString user = QStringLiteral("sluice-operator");
        const auto policyFile = [this](int limit) {
            const QString file = m_dir.filePath(QStringLiteral("operator-%1.json").arg(limit));
            test::writeFile(file,
                            QStringLiteral("{\"policies\": [{\"name\": \"api\", \"algorithm\": \"token_bucket\", "
                                           "\"limit\": %1, \"window_ms\": 3600000}]}")
                                .arg(limit)
                                .toUtf8());
            return file;
        };
        QVector<QStringList> steps{
            {QStringLiteral("apply"), policyFile(5)},
            {QStringLiteral("publish")},
            {QStringLiteral("status")},
            {QStringLiteral("acquire"), QStringLiteral("api"), QStringLiteral("alice")},
            {QStringLiteral("apply"), policyFile(8)},
            {QStringLiteral("rollback"), QStringLiteral("api"), QStringLiteral("1")},
            {QStringLiteral("publish")},
            {QStringLiteral("reset-key"), QStringLiteral("api"), QStringLiteral("alice")},
            {QStringLiteral("history")},
            {QStringLiteral("keys")},
            {QStringLiteral("fire"), QStringLiteral("api"), QStringLiteral("--rate"), QStringLiteral("20"),
             QStringLiteral("--duration"), QStringLiteral("0.2")},
        };
        for (const char *seed : {"scg_token_bucket:10:20", "fixed_window_counter:10:1", "ms_token_bucket:10:20"})
            steps.append({QStringLiteral("fire"), QLatin1String(seed), QStringLiteral("--rate"), QStringLiteral("20"),
                          QStringLiteral("--duration"), QStringLiteral("0.2")});
        for (const QStringList &step : steps) {
            const CtlRun run = ctlAs(user, ns, step);
            QVERIFY2(run.exitCode == 0, qPrintable(step.first() + QLatin1Char('\n') + shown(run)));
            QVERIFY2(!run.err.contains(QLatin1String("NOPERM")), qPrintable(shown(run)));
        }
        QCOMPARE(admin({"HGET", "{sluice}:policy:api", "version"}).value.bytes, QByteArray("3"));
        QCOMPARE(admin({"HGET", "{sluice}:policy:api", "limit"}).value.bytes, QByteArray("5"));
        QCOMPARE(admin({"EXISTS", test::bucketKey(QStringLiteral("api"), "alice")}).value.integer, 0);
        const RedisReply audit = admin({"XREVRANGE", "{sluice}:audit", "+", "-", "COUNT", "1"});
        QVERIFY2(audit.ok() && shown(audit).contains(QLatin1String("reset")), qPrintable(shown(audit)));

        // Another namespace's operator reaches none of this one's data; no operator reaches the server itself.
        const CtlRun foreign = ctlAs(kOtherNamespace + QStringLiteral("-operator"), ns, {QStringLiteral("policies")});
        QVERIFY2(foreign.exitCode != 0 && foreign.err.contains(QLatin1String("NOPERM")), qPrintable(shown(foreign)));
        RedisConnection operatorConnection(optionsFor(user));
        QVERIFY(test::openAndWait(operatorConnection));
        const QVector<QByteArrayList> refused{
            {"FUNCTION", "FLUSH"},
            {"FUNCTION", "DELETE", "sluice"},
            {"FLUSHALL"},
            {"KEYS", "*"},
            {"CONFIG", "SET", "save", ""},
            {"ACL", "SETUSER", "intruder", "on", ">x", "+@all", "~*"},
            {"SHUTDOWN"},
            {"SMEMBERS", "{teamb}:policies"},
            {"GET", test::bucketKey(QStringLiteral("api"), "alice", kOtherNamespace)},
        };
        for (const QByteArrayList &command : refused) {
            const RedisReply reply = syncCommand(operatorConnection, command);
            QVERIFY2(isNoPerm(reply),
                     qPrintable(QString::fromUtf8(command.first()) + QStringLiteral(": ") + shown(reply)));
        }
    }
};

QTEST_GUILESS_MAIN(TestAclRoles)
#include "tst_acl_roles.moc"
