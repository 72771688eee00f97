// SPDX-License-Identifier: GPL-3.0-or-later
// The connection manager and the main window's connection handling, offscreen, on real servers:
// profiles added, edited, renamed, duplicated and deleted through the form (secrets kept beside
// them in a keychain fake, never in the settings file); a connection test with a clear result that
// never stalls the GUI; the password asked for, with the reason, when no keychain answers; the
// production confirmation and the read-only refusal before a write; drift shown after a restart.

#include "model/connection/connection_session.h"
#include "model/connection/remembering_secret_store.h"
#include "model/monitor/rate_history_store.h"
#include "support/event_loop_watchdog.h"
#include "support/fake_secret_store.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/connection/connection_manager.h"
#include "ui/window/main_window.h"

#include <QCheckBox>
#include <QComboBox>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace sluice;
using model::ConnectionProfile;
using model::ProfileSettings;
using test::child;
using test::click;
using test::openDialog;
using test::typeInto;

namespace {

void pasteUrl(QWidget *parent, const QString &url)
{
    typeInto(parent, "urlEdit", url);
    QMetaObject::invokeMethod(child<QLineEdit>(parent, "urlEdit"), "editingFinished");
}

// Publishes from the window's menu the way an operator does: the action, then the review's Publish.
void confirmPublish(ui::MainWindow &window)
{
    window.findChild<QAction *>(QStringLiteral("publishAction"))->trigger();
    QDialog *review = nullptr;
    QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
    review->accept();
}

QStringList listedNames(QWidget *manager)
{
    QStringList names;
    auto *list = child<QListWidget>(manager, "profileList");
    for (int row = 0; row < list->count(); ++row)
        names << list->item(row)->data(Qt::UserRole).toString();
    return names;
}

QString urlWithPassword(const QString &url, const QString &user, const QString &password)
{
    QString result = url;
    return result.replace(QLatin1String("redis://"), QStringLiteral("redis://%1:%2@").arg(user, password));
}

} // namespace

class TestConnectionManager : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<QSettings> m_settings;
    test::FakeSecretStore m_secrets;

    QByteArray settingsFile() const
    {
        m_settings->sync();
        QFile file(m_settings->fileName());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    ConnectionProfile saveProfile(const QString &name, const redis::ConnectionOptions &options)
    {
        ConnectionProfile profile;
        profile.name = name;
        profile.options = options;
        profile.options.password.clear();
        if (const auto failure = ProfileSettings(m_settings.get()).save(profile, {}))
            qWarning("%s", qPrintable(failure->message));
        return profile;
    }

    // A main window connected to `server` with a dev profile (no production confirmations), shown.
    static std::unique_ptr<ui::MainWindow> devWindow(const test::RedisProcess &server)
    {
        ConnectionProfile dev;
        dev.name = QStringLiteral("dev");
        dev.options = server.options();
        auto window = std::make_unique<ui::MainWindow>();
        window->show();
        window->setSession(std::make_unique<model::ConnectionSession>(dev, server.options()));
        return window;
    }

    // Profile "acl" as the ACL server's admin user (its password saved nowhere), and no keychain answering.
    void saveAdminProfileWithoutKeychain(const QString &aclUrl)
    {
        redis::ConnectionOptions admin = test::optionsFor(aclUrl);
        admin.user = QStringLiteral("admin");
        saveProfile(QStringLiteral("acl"), admin);
        m_secrets.available = false;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(m_dir.filePath(QStringLiteral("sluice.conf")));
        m_settings = std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("sluice.conf")), QSettings::IniFormat);
        m_secrets.secrets.clear();
        m_secrets.available = true;
    }

    // The dialog opens within a 1024x700 screen, and fits it, with every row it can show: TLS on, each
    // way to connect, a verification turned off (its warning shown).
    void theDialogFitsAt1024x700()
    {
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        click(&manager, "addButton");
        child<QCheckBox>(&manager, "tlsCheck")->setChecked(true);
        child<QCheckBox>(&manager, "verifyCheck")->setChecked(false);
        auto *via = child<QComboBox>(&manager, "viaCombo");
        for (int index = 0; index < via->count(); ++index) {
            via->setCurrentIndex(index);
            QCoreApplication::processEvents();
            const QSize least = manager.minimumSizeHint(), opensAt = manager.sizeHint();
            QVERIFY2(opensAt.width() <= 1024 && opensAt.height() <= 700 && least.width() <= opensAt.width()
                         && least.height() <= opensAt.height(),
                     qPrintable(QStringLiteral("%1: the dialog opens at %2x%3 and needs at least %4x%5")
                                    .arg(via->currentText())
                                    .arg(opensAt.width())
                                    .arg(opensAt.height())
                                    .arg(least.width())
                                    .arg(least.height())));
        }
    }

    void addEditRenameDuplicateAndDelete()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        QVERIFY(listedNames(&manager).isEmpty());
        QVERIFY(!child<QPushButton>(&manager, "connectButton")->isEnabled());

        click(&manager, "addButton");
        QCOMPARE(listedNames(&manager), QStringList{QStringLiteral("new profile")});
        typeInto(&manager, "nameEdit", QStringLiteral("edge cache"));
        pasteUrl(&manager,
                 urlWithPassword(aclUrl, QStringLiteral("admin"), QStringLiteral("admin-secret"))
                     + QStringLiteral("/2"));
        QCOMPARE(child<QLineEdit>(&manager, "userEdit")->text(), QStringLiteral("admin"));
        QCOMPARE(child<QSpinBox>(&manager, "databaseSpin")->value(), 2);
        QCOMPARE(child<QLineEdit>(&manager, "passwordEdit")->text(), QStringLiteral("admin-secret"));
        child<QComboBox>(&manager, "environmentCombo")->setCurrentIndex(2); // production
        click(&manager, "saveButton");

        QCOMPARE(listedNames(&manager), QStringList{QStringLiteral("edge cache")});
        const auto saved = ProfileSettings(m_settings.get()).profile(QStringLiteral("edge cache"));
        QVERIFY(saved);
        QCOMPARE(saved->options.user, QStringLiteral("admin"));
        QCOMPARE(saved->options.database, 2);
        QCOMPARE(saved->options.address(), test::optionsFor(aclUrl).address());
        QCOMPARE(saved->environment, ConnectionProfile::Environment::Production);
        QTRY_COMPARE(m_secrets.secrets.value(saved->passwordKey()), QStringLiteral("admin-secret"));
        QVERIFY(!settingsFile().contains("admin-secret"));
        QVERIFY(child<QLineEdit>(&manager, "passwordEdit")->text().isEmpty()); // not kept in the form

        // A rename carries the password along; a duplicate gets a copy.
        typeInto(&manager, "nameEdit", QStringLiteral("edge-cache-eu"));
        click(&manager, "saveButton");
        QCOMPARE(listedNames(&manager), QStringList{QStringLiteral("edge-cache-eu")});
        QTRY_COMPARE(m_secrets.secrets.value(QStringLiteral("profile/edge-cache-eu/password")),
                     QStringLiteral("admin-secret"));
        QTRY_VERIFY(!m_secrets.secrets.contains(QStringLiteral("profile/edge cache/password")));
        click(&manager, "duplicateButton");
        QCOMPARE(listedNames(&manager),
                 (QStringList{QStringLiteral("edge-cache-eu"), QStringLiteral("edge-cache-eu copy")}));
        QTRY_COMPARE(m_secrets.secrets.value(QStringLiteral("profile/edge-cache-eu copy/password")),
                     QStringLiteral("admin-secret"));

        // Deleting asks first; cancelled, nothing goes.
        click(&manager, "deleteButton");
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = openDialog<QMessageBox>("deleteConfirmation")));
        confirm->button(QMessageBox::Cancel)->click();
        QCOMPARE(listedNames(&manager).size(), 2);
        click(&manager, "deleteButton");
        QTRY_VERIFY((confirm = openDialog<QMessageBox>("deleteConfirmation")));
        QVERIFY(confirm->text().contains(QLatin1String("edge-cache-eu copy")));
        confirm->button(QMessageBox::Yes)->click();
        QCOMPARE(listedNames(&manager), QStringList{QStringLiteral("edge-cache-eu")});
        QTRY_VERIFY(!m_secrets.secrets.contains(QStringLiteral("profile/edge-cache-eu copy/password")));
        QVERIFY(m_secrets.secrets.contains(QStringLiteral("profile/edge-cache-eu/password")));
    }

    // What the dashboard kept for a profile (settings, rate history files in every namespace) goes with it; a
    // name it prefixes, another case of it, a link planted among the files and the profile in use stay.
    void deletingAProfileRemovesWhatWasKeptForIt()
    {
        using Kept = ProfileSettings::Kept;
        QTemporaryDir history;
        QVERIFY(history.isValid());
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const model::RateSeries series = {{QStringLiteral("api"), {model::RatePoint{now - 1000, 1000, 5, 1}}}};
        const auto keep = [&](const QString &profile, const QString &ns, const QString &directory) {
            if (!ProfileSettings(m_settings.get()).profile(profile))
                saveProfile(profile, test::optionsFor(QStringLiteral("redis://127.0.0.1:1")));
            for (Kept kept : {Kept::WatchList, Kept::FireChoices})
                m_settings->setValue(ProfileSettings::keptKey(kept, profile), QStringLiteral("kept"));
            const model::RateHistoryStore store(directory, {profile, ns, 0, QStringLiteral("redis://127.0.0.1:1")});
            const auto failure = store.save(series, now, 3600 * 1000);
            return failure ? failure->message : store.path();
        };
        const QString dir = history.path();
        const QStringList gone = {keep(QStringLiteral("edge"), QStringLiteral("sluice"), dir),
                                  keep(QStringLiteral("edge"), QStringLiteral("teamb"), dir)};
        const QStringList stay = {keep(QStringLiteral("edge2"), QStringLiteral("sluice"), dir),
                                  keep(QStringLiteral("Edge"), QStringLiteral("sluice"), dir)};
        QTemporaryDir elsewhere;
        const QString planted = QDir(elsewhere.path()).filePath(QStringLiteral("edge.rates"));
        QVERIFY(QFile::copy(gone.first(), planted)); // a file of "edge"'s, outside the folder, behind a link
        QVERIFY(QFile::link(planted, QDir(dir).filePath(QStringLiteral("planted.rates"))));
        for (const QString &path : gone + stay)
            QVERIFY2(QFileInfo::exists(path), qPrintable(path));

        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.setRateHistoryDirectory(dir);
        manager.setProfileInUse(QStringLiteral("edge2"));
        manager.show();
        manager.selectProfile(QStringLiteral("edge2"));
        QVERIFY(!child<QPushButton>(&manager, "deleteButton")->isEnabled());
        QVERIFY(child<QPushButton>(&manager, "deleteButton")->toolTip().contains(QLatin1String("connected with")));
        manager.selectProfile(QStringLiteral("edge"));
        click(&manager, "deleteButton");
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = openDialog<QMessageBox>("deleteConfirmation")));
        QVERIFY(confirm->text().contains(QLatin1String("rate history")));
        confirm->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(!listedNames(&manager).contains(QStringLiteral("edge")));
        for (const QString &path : gone)
            QVERIFY2(!QFileInfo::exists(path), qPrintable(path + QLatin1String(" is still there")));
        for (const QString &path : stay + QStringList{planted, QDir(dir).filePath(QStringLiteral("planted.rates"))})
            QVERIFY2(QFileInfo::exists(path), qPrintable(path + QLatin1String(" was removed")));
        for (Kept kept : {Kept::WatchList, Kept::FireChoices}) {
            QVERIFY(!m_settings->contains(ProfileSettings::keptKey(kept, QStringLiteral("edge"))));
            QVERIFY(m_settings->contains(ProfileSettings::keptKey(kept, QStringLiteral("edge2"))));
            QVERIFY(m_settings->contains(ProfileSettings::keptKey(kept, QStringLiteral("Edge"))));
        }
    }

    void invalidInputIsExplainedAndNotSaved_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty name") << "nameEdit"
                                    << ""
                                    << "the name must be";
        QTest::newRow("name with slash") << "nameEdit"
                                         << "a/b"
                                         << "the name must be";
        QTest::newRow("empty host") << "hostEdit"
                                    << ""
                                    << "the host is empty";
        QTest::newRow("credentials in host") << "hostEdit"
                                             << "admin:S3cr3t@h"
                                             << "the host must be a name";
        QTest::newRow("bad namespace") << "namespaceEdit"
                                       << "has space"
                                       << "the namespace must be";
        QTest::newRow("bad url scheme") << "urlEdit"
                                        << "http://example.com"
                                        << "URL:";
        QTest::newRow("url port out of range") << "urlEdit"
                                               << "redis://127.0.0.1:70000"
                                               << "URL:";
    }
    void invalidInputIsExplainedAndNotSaved()
    {
        QFETCH(QString, field);
        QFETCH(QString, text);
        QFETCH(QString, message);
        saveProfile(QStringLiteral("steady"), {});
        const QByteArray before = settingsFile();
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        if (field == QLatin1String("urlEdit"))
            pasteUrl(&manager, text);
        else
            typeInto(&manager, field.toLatin1().constData(), text);
        auto *problems = child<QLabel>(&manager, "problemsLabel");
        QVERIFY2(!problems->isHidden() && problems->text().contains(message), qPrintable(problems->text()));
        QVERIFY(!child<QPushButton>(&manager, "saveButton")->isEnabled());
        QVERIFY(!child<QPushButton>(&manager, "connectButton")->isEnabled());
        QVERIFY(!child<QPushButton>(&manager, "testButton")->isEnabled());
        QCOMPARE(settingsFile(), before);
    }

    void sentinelEntriesAreChecked()
    {
        saveProfile(QStringLiteral("steady"), {});
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        child<QComboBox>(&manager, "viaCombo")->setCurrentIndex(2);
        QVERIFY(child<QLineEdit>(&manager, "sentinelsEdit")->isVisible());
        QVERIFY(!child<QLineEdit>(&manager, "hostEdit")->isVisible());
        typeInto(&manager, "sentinelsEdit", QStringLiteral("127.0.0.1:26379, nonsense"));
        auto *problems = child<QLabel>(&manager, "problemsLabel");
        QVERIFY2(problems->text().contains(QLatin1String("sentinel 2 of 2: not host:port")),
                 qPrintable(problems->text()));
        QVERIFY2(problems->text().contains(QLatin1String("service name")), qPrintable(problems->text()));
        QVERIFY(!child<QPushButton>(&manager, "saveButton")->isEnabled());
    }

    void testConnectionGivesAClearResultWithoutStalling()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        SLUICE_REQUIRE_SERVICE(tlsUrl, "SLUICE_TEST_TLS_URL", "Redis with TLS");
        SLUICE_REQUIRE_SERVICE(otherCa, "SLUICE_TEST_TLS_OTHER_CA", "the untrusted test CA");
        test::RedisProcess frozen(test::RedisProcess::Patience::Quick);
        QVERIFY2(frozen.start(), qPrintable(frozen.errorString()));
        redis::ConnectionOptions admin = test::optionsFor(aclUrl);
        admin.user = QStringLiteral("admin");
        const ConnectionProfile withPassword = saveProfile(QStringLiteral("a-acl"), admin);
        m_secrets.secrets.insert(withPassword.passwordKey(), QStringLiteral("admin-secret"));
        saveProfile(QStringLiteral("b-wrong-password"), admin);
        redis::ConnectionOptions untrusted = test::optionsFor(tlsUrl);
        untrusted.caFile = otherCa;
        saveProfile(QStringLiteral("c-untrusted"), untrusted);
        redis::ConnectionOptions frozenOptions = frozen.options();
        frozenOptions.connectTimeoutMs = 1500;
        saveProfile(QStringLiteral("d-frozen"), frozenOptions);
        frozen.freeze();

        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        test::EventLoopWatchdog watchdog;
        watchdog.start();
        const auto testProfile = [&](const QString &name) -> QString {
            manager.selectProfile(name);
            child<QPushButton>(&manager, "testButton")->click();
            const bool ended = test::spinUntil(
                [&] {
                return manager.testResult().startsWith(QStringLiteral("\u2713"))
                    || manager.testResult().startsWith(QStringLiteral("\u2717"));
                },
                15000);
            return ended ? manager.testResult() : QStringLiteral("no result: ") + manager.testResult();
        };
        const QString ok = testProfile(QStringLiteral("a-acl"));
        QVERIFY2(ok.contains(QLatin1String("Connected in")) && ok.contains(QLatin1String("Redis 7.")), qPrintable(ok));
        const QString wrongPassword = testProfile(QStringLiteral("b-wrong-password"));
        QVERIFY2(wrongPassword.contains(QLatin1String("NOAUTH")) || wrongPassword.contains(QLatin1String("WRONGPASS")),
                 qPrintable(wrongPassword));
        const QString notTrusted = testProfile(QStringLiteral("c-untrusted"));
        QVERIFY2(notTrusted.contains(QLatin1String("certificate")), qPrintable(notTrusted));
        const QString silent = testProfile(QStringLiteral("d-frozen"));
        QVERIFY2(silent.startsWith(QStringLiteral("\u2717")), qPrintable(silent));
        frozen.thaw();
        qInfo("results: %s | %s | %s | %s", qPrintable(ok), qPrintable(wrongPassword), qPrintable(notTrusted),
              qPrintable(silent));
        qInfo("longest event-loop stall during the tests: %lld ms (%lld ms waiting for a CPU left out)",
              watchdog.longestStallMs(), watchdog.waitedForCpuMs());
        QVERIFY2(watchdog.longestStallMs() <= 50,
                 qPrintable(QStringLiteral("the GUI stalled %1 ms").arg(watchdog.longestStallMs())));
    }

    void passwordIsAskedForWhenNoKeychainAnswers()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        saveAdminProfileWithoutKeychain(aclUrl);
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        std::optional<model::ConnectionSecrets> resolved;
        connect(&manager, &ui::ConnectionManager::connectRequested, this,
                [&](const ConnectionProfile &, const model::ConnectionSecrets &secrets) { resolved = secrets; });
        manager.show();
        // Escape at the prompt: no switch, and the manager says so rather than nothing.
        click(&manager, "connectButton");
        QInputDialog *prompt = nullptr;
        QTRY_VERIFY((prompt = openDialog<QInputDialog>("secretPrompt")));
        prompt->reject();
        QTRY_VERIFY2(manager.testResult().contains(QLatin1String("was not opened")), qPrintable(manager.testResult()));
        QVERIFY(!resolved.has_value());
        QVERIFY(manager.isVisible());
        click(&manager, "connectButton");
        QTRY_VERIFY((prompt = openDialog<QInputDialog>("secretPrompt")));
        QVERIFY2(prompt->labelText().contains(QLatin1String("keychain did not answer")),
                 qPrintable(prompt->labelText()));
        QVERIFY2(prompt->labelText().contains(QLatin1String("org.freedesktop.secrets")),
                 qPrintable(prompt->labelText()));
        QVERIFY(prompt->labelText().contains(QLatin1String("user admin")));
        QCOMPARE(prompt->textEchoMode(), QLineEdit::Password);
        prompt->setTextValue(QStringLiteral("admin-secret"));
        prompt->accept();
        QTRY_VERIFY(resolved.has_value());
        QCOMPARE(resolved->password, QStringLiteral("admin-secret"));
        QVERIFY(!settingsFile().contains("admin-secret"));
        // The answer was offered to the keychain, which did not answer (the fake answers on the next pass).
        QCoreApplication::processEvents();
        QVERIFY(m_secrets.secrets.isEmpty());

        // A profile that never saves its password asks each time, and says so.
        ConnectionProfile asking = *ProfileSettings(m_settings.get()).profile(QStringLiteral("acl"));
        asking.savePassword = false;
        QCOMPARE(sluice::model::messageOf(ProfileSettings(m_settings.get()).save(asking, asking.name)), QString());
        m_secrets.available = true;
        ui::ConnectionManager again(m_settings.get(), &m_secrets);
        again.show();
        click(&again, "testButton");
        QTRY_VERIFY((prompt = openDialog<QInputDialog>("secretPrompt")));
        QVERIFY2(prompt->labelText().contains(QLatin1String("asks for its secrets each time")),
                 qPrintable(prompt->labelText()));
        prompt->setTextValue(QStringLiteral("admin-secret"));
        prompt->accept();
        QTRY_VERIFY_WITH_TIMEOUT(again.testResult().startsWith(QStringLiteral("\u2713")), 10000);
        QVERIFY(m_secrets.secrets.isEmpty());
    }

    // "The server asks for no password", set once in the form, holds across restarts: without a keychain
    // Test and Connect ask nothing (they asked at every start); the keychain is not even read for it.
    void aProfileWithNoPasswordIsNeverAskedForOne()
    {
        SLUICE_REQUIRE_SERVICE(url, "SLUICE_TEST_REDIS_URL", "Redis standalone");
        saveProfile(QStringLiteral("open"), test::optionsFor(url));
        m_secrets.available = false;
        {
            ui::ConnectionManager manager(m_settings.get(), &m_secrets);
            manager.show();
            manager.selectProfile(QStringLiteral("open"));
            auto *none = child<QCheckBox>(&manager, "noPasswordCheck");
            QVERIFY(!none->isChecked());
            none->setChecked(true);
            QVERIFY(!child<QLineEdit>(&manager, "passwordEdit")->isEnabled());
            click(&manager, "saveButton");
        }
        QVERIFY(ProfileSettings(m_settings.get()).profile(QStringLiteral("open"))->noPassword);
        for (int run = 0; run < 2; ++run) { // as at two starts of the program
            ui::ConnectionManager manager(m_settings.get(), &m_secrets);
            std::optional<model::ConnectionSecrets> resolved;
            connect(&manager, &ui::ConnectionManager::connectRequested, this,
                    [&](const ConnectionProfile &, const model::ConnectionSecrets &secrets) { resolved = secrets; });
            manager.show();
            manager.selectProfile(QStringLiteral("open"));
            QVERIFY(child<QCheckBox>(&manager, "noPasswordCheck")->isChecked());
            click(&manager, "testButton");
            QTRY_VERIFY_WITH_TIMEOUT(manager.testResult().startsWith(QStringLiteral("\u2713")), 10000);
            click(&manager, "connectButton");
            QTRY_VERIFY(resolved.has_value());
            QVERIFY(resolved->password.isEmpty());
            QVERIFY(!openDialog<QInputDialog>("secretPrompt"));
        }
        // Nor does a profile that asks for its secrets each time: it has none to ask for.
        ConnectionProfile asking = *ProfileSettings(m_settings.get()).profile(QStringLiteral("open"));
        asking.savePassword = false;
        QCOMPARE(sluice::model::messageOf(ProfileSettings(m_settings.get()).save(asking, asking.name)), QString());
        {
            ui::ConnectionManager manager(m_settings.get(), &m_secrets);
            manager.show();
            manager.selectProfile(QStringLiteral("open"));
            click(&manager, "testButton");
            QTRY_VERIFY_WITH_TIMEOUT(manager.testResult().startsWith(QStringLiteral("\u2713")), 10000);
            QVERIFY(!openDialog<QInputDialog>("secretPrompt"));
        }

        // A URL pasted with a password says there is one after all.
        ui::ConnectionManager manager(m_settings.get(), &m_secrets);
        manager.show();
        manager.selectProfile(QStringLiteral("open"));
        pasteUrl(&manager, urlWithPassword(url, QStringLiteral("default"), QStringLiteral("s3cret")));
        QVERIFY(!child<QCheckBox>(&manager, "noPasswordCheck")->isChecked());
        QCOMPARE(child<QLineEdit>(&manager, "passwordEdit")->text(), QStringLiteral("s3cret"));
    }

    // Without a keychain the secret typed once serves the rest of the run (it was asked at every Test and
    // Connect), in memory only: never in the settings, nor in the keychain that did not answer.
    void aSecretTypedWithoutAKeychainIsAskedOncePerRun()
    {
        SLUICE_REQUIRE_SERVICE(aclUrl, "SLUICE_TEST_ACL_URL", "Redis with ACL users");
        saveAdminProfileWithoutKeychain(aclUrl);
        model::RememberingSecretStore remembered(&m_secrets);
        const auto passed = [](const ui::ConnectionManager &manager) {
            return manager.testResult().startsWith(QStringLiteral("\u2713"));
        };
        {
            ui::ConnectionManager manager(m_settings.get(), &remembered);
            manager.show();
            click(&manager, "testButton");
            QInputDialog *prompt = nullptr;
            QTRY_VERIFY((prompt = openDialog<QInputDialog>("secretPrompt")));
            prompt->setTextValue(QStringLiteral("admin-secret"));
            prompt->accept();
            QTRY_VERIFY_WITH_TIMEOUT(passed(manager), 10000);
            click(&manager, "testButton"); // again: no question this time
            QTRY_VERIFY_WITH_TIMEOUT(manager.testResult().startsWith(QLatin1String("Testing")), 5000);
            QTRY_VERIFY_WITH_TIMEOUT(passed(manager), 10000);
            QVERIFY(!openDialog<QInputDialog>("secretPrompt"));
        }
        // The connection list opened again (the same run): Connect goes through without asking.
        ui::ConnectionManager again(m_settings.get(), &remembered);
        std::optional<model::ConnectionSecrets> resolved;
        connect(&again, &ui::ConnectionManager::connectRequested, this,
                [&](const ConnectionProfile &, const model::ConnectionSecrets &secrets) { resolved = secrets; });
        again.show();
        click(&again, "connectButton");
        QTRY_VERIFY(resolved.has_value());
        QCOMPARE(resolved->password, QStringLiteral("admin-secret"));
        QVERIFY(!openDialog<QInputDialog>("secretPrompt"));
        QVERIFY(m_secrets.secrets.isEmpty());
        QVERIFY(!settingsFile().contains("admin-secret"));
    }

    void productionConfirmsAndReadOnlyRefusesWrites()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        ConnectionProfile production;
        production.name = QStringLiteral("prod");
        production.environment = ConnectionProfile::Environment::Production;
        production.options = server.options();
        ui::MainWindow window;
        window.show();
        window.setSession(std::make_unique<model::ConnectionSession>(production, server.options()));
        QTRY_VERIFY(
            window.findChild<QLabel *>(QStringLiteral("statusState"))->text().contains(QLatin1String("Connected")));
        QVERIFY(
            window.findChild<QLabel *>(QStringLiteral("statusProfile"))->text().contains(QLatin1String("PRODUCTION")));
        const QString nodes = window.findChild<QLabel *>(QStringLiteral("statusState"))->toolTip();
        QVERIFY2(nodes.contains(QStringLiteral("primary %1: ready").arg(server.options().address())),
                 qPrintable(nodes));
        auto *publish = window.findChild<QAction *>(QStringLiteral("publishAction"));
        QVERIFY(publish->isEnabled());
        redis::RedisClient observer(server.options());
        QVERIFY(test::openAndWait(observer));
        const auto libraries = [&] { return test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(); };

        publish->trigger();
        QDialog *review = nullptr;
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        QVERIFY(
            review->findChild<QLabel *>(QStringLiteral("publishIntro"))->text().contains(QLatin1String("production")));
        review->reject();
        QVERIFY(test::settle(window));
        QCOMPARE(libraries(), 0);
        publish->trigger();
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        review->accept();
        // Nothing is stored, so the library would serve no policy: the publisher refuses, the window asks.
        QMessageBox *anyway = nullptr;
        QTRY_VERIFY((anyway = openDialog<QMessageBox>("writeConfirmation"))
                    && anyway->text().contains(QLatin1String("stores no policies")));
        QCOMPARE(libraries(), 0);
        anyway->button(QMessageBox::Yes)->click();
        QTRY_COMPARE(libraries(), 1);

        ConnectionProfile audit = production;
        audit.name = QStringLiteral("audit");
        audit.environment = ConnectionProfile::Environment::Staging;
        audit.readOnly = true;
        window.setSession(std::make_unique<model::ConnectionSession>(audit, server.options()));
        QVERIFY(!publish->isEnabled());
        QVERIFY(
            window.findChild<QLabel *>(QStringLiteral("statusProfile"))->text().contains(QLatin1String("read-only")));
        window.publishLibrary(); // as a shortcut or a stale button would
        QMessageBox *refused = nullptr;
        QTRY_VERIFY((refused = openDialog<QMessageBox>("writeRefused")));
        refused->accept();
        QTRY_VERIFY(window.session()->isReady());
        // The session's own connection refuses the write too, whoever asks it (allowed all a publish may be).
        std::optional<model::PublishResult> bypassed;
        window.session()
            ->publisher({true, true, true})
            .publish(QStringLiteral("test"), this, [&](const model::PublishResult &result) { bypassed = result; });
        QTRY_VERIFY(bypassed.has_value());
        QVERIFY(bypassed->failure.has_value());
        QVERIFY2(bypassed->failure->message.contains(QLatin1String("read-only")),
                 qPrintable(bypassed->failure->message));
        QCOMPARE(libraries(), 1);
    }

    void publishAsksBeforeTakingOverALibraryItDidNotPublish()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        redis::RedisClient observer(server.options());
        QVERIFY(test::openAndWait(observer));
        QVERIFY(test::syncCommand(observer,
                                  {"FUNCTION", "LOAD",
                                   "#!lua name=sluice\nredis.register_function('hello', function() return 1 end)"})
                    .ok());
        QCOMPARE(test::storePolicy(observer, QStringLiteral("sluice"),
                                   test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 5, 60000)),
                 QString());
        const auto functions = [&] {
            QByteArrayList names;
            for (const redis::RespValue &library : test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements)
                for (const redis::RespValue &function : library.field("functions")->elements)
                    names << function.field("name")->bytes;
            return names;
        };
        const std::unique_ptr<ui::MainWindow> shown = devWindow(server);
        ui::MainWindow &window = *shown;
        QTRY_VERIFY(
            window.findChild<QLabel *>(QStringLiteral("statusState"))->text().contains(QLatin1String("Connected")));

        // The library named sluice is not Sluice's: the window asks, and No leaves it running.
        confirmPublish(window);
        QMessageBox *anyway = nullptr;
        QTRY_VERIFY((anyway = openDialog<QMessageBox>("writeConfirmation"))
                    && anyway->text().contains(QLatin1String("did not publish")));
        QVERIFY2(anyway->text().contains(QLatin1String("not a Sluice library")), qPrintable(anyway->text()));
        anyway->button(QMessageBox::Cancel)->click();
        QVERIFY(test::settle(window));
        QCOMPARE(functions(), QByteArrayList{"hello"});
        confirmPublish(window);
        QTRY_VERIFY((anyway = openDialog<QMessageBox>("writeConfirmation")));
        anyway->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(functions().contains("sluice_acquire"));
        QVERIFY(!functions().contains("hello"));
    }

    void driftIsShownAfterTheServerLosesTheLibrary()
    {
        test::RedisProcess server(test::RedisProcess::Patience::Quick);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const std::unique_ptr<ui::MainWindow> shown = devWindow(server);
        ui::MainWindow &window = *shown;
        auto *banner = window.findChild<QLabel *>(QStringLiteral("driftBanner"));
        QTRY_VERIFY(window.session()->libraryWatch()->checks() > 0);
        redis::RedisClient writer(server.options());
        QVERIFY(test::openAndWait(writer));
        QCOMPARE(test::storePolicy(writer, window.session()->profile().ns,
                                   test::makePolicy(QStringLiteral("api"), model::Algorithm::TokenBucket, 100, 60000)),
                 QString());
        confirmPublish(window); // dev: a review all the same
        QTRY_COMPARE(window.session()->libraryWatch()->lastReport().status.published.version, 1);
        QVERIFY(banner->isHidden());
        QVERIFY(server.restart());
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), 15000);
        QVERIFY2(banner->text().contains(QLatin1String("now has none")), qPrintable(banner->text()));
        QVERIFY(banner->text().contains(server.options().address()));
    }
};

QTEST_MAIN(TestConnectionManager)
#include "tst_connection_manager.moc"
