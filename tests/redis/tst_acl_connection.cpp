// SPDX-License-Identifier: GPL-3.0-or-later
// ACL users on the test command's ACL server: "limiter" has the service role (it may call the limiter
// on sluice:* keys and nothing else), "admin" may do anything, and the default user is off.

#include "model/deploy/acl_roles.h"
#include "redis/redis_connection.h"
#include "support/sync_command.h"
#include "support/test_services.h"

#include <QSet>
#include <QTest>

using namespace sluice;
using redis::RedisConnection;
using test::openAndWait;
using test::syncCommand;

namespace {

redis::ConnectionOptions withUser(const QString &url, const QString &userAndPassword)
{
    auto options = test::optionsFor(url);
    options.user = userAndPassword.section(QLatin1Char(':'), 0, 0);
    options.password = userAndPassword.section(QLatin1Char(':'), 1);
    return options;
}

} // namespace

class TestAclConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void restrictedUserGetsClearError()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(user, "SLUICE_TEST_ACL_RESTRICTED", "the restricted ACL user");
        RedisConnection connection(withUser(url, user));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QVERIFY(syncCommand(connection, {"PING"}).ok());
        const auto forbidden = syncCommand(connection, {"SET", "acl:test", "1"});
        QVERIFY(!forbidden.ok());
        QVERIFY2(forbidden.errorText().startsWith(QLatin1String("NOPERM")), qPrintable(forbidden.errorText()));
        QCOMPARE(connection.state(), RedisConnection::State::Ready); // an error reply is not a broken connection
    }

    void adminUserMayWrite()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(user, "SLUICE_TEST_ACL_ADMIN", "the admin ACL user");
        RedisConnection connection(withUser(url, user));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        QVERIFY(syncCommand(connection, {"SET", "acl:test", "1"}).ok());
        QCOMPARE(syncCommand(connection, {"ACL", "WHOAMI"}).value.bytes, QByteArray("admin"));
        syncCommand(connection, {"DEL", "acl:test"});
    }

    // tests/services/services.sh writes the role out by hand: it must stay what `sluicectl acl service` prints.
    void limiterUserHasTheServiceRole()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(user, "SLUICE_TEST_ACL_ADMIN", "the admin ACL user");
        RedisConnection connection(withUser(url, user));
        QVERIFY2(openAndWait(connection), qPrintable(connection.lastError()));
        const auto described = syncCommand(connection, {"ACL", "GETUSER", "limiter"});
        QVERIFY2(described.ok(), qPrintable(described.errorText()));
        const redis::RespValue *commands = described.value.field("commands");
        const redis::RespValue *keys = described.value.field("keys");
        QVERIFY(commands && keys);
        QSet<QString> expected;
        QString expectedKeys;
        for (const QString &rule : model::aclRules(model::AclRole::Service, QStringLiteral("sluice"))) {
            if (rule.startsWith(QLatin1Char('+')) || rule.startsWith(QLatin1Char('-')))
                expected.insert(rule);
            else if (rule.startsWith(QLatin1Char('~')))
                expectedKeys = rule;
        }
        const QStringList granted = commands->toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QCOMPARE(QSet<QString>(granted.begin(), granted.end()), expected);
        QCOMPARE(keys->toString(), expectedKeys);
    }

    void wrongPasswordFailsWithoutRetrying()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        RedisConnection connection(withUser(url, QStringLiteral("admin:wrong")));
        QVERIFY(!openAndWait(connection));
        QCOMPARE(connection.state(), RedisConnection::State::Failed);
        QVERIFY2(connection.lastError().contains(QLatin1String("WRONGPASS")), qPrintable(connection.lastError()));
        QVERIFY2(!connection.lastError().contains(QLatin1String("wrong")), "the password must not be echoed");
    }

    void missingCredentialsAreReported()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        RedisConnection connection(test::optionsFor(url));
        QVERIFY(!openAndWait(connection));
        QCOMPARE(connection.state(), RedisConnection::State::Failed);
        QVERIFY2(connection.lastError().contains(QLatin1String("NOAUTH")), qPrintable(connection.lastError()));
    }
};

QTEST_GUILESS_MAIN(TestAclConnection)
#include "tst_acl_connection.moc"
