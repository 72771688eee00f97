// SPDX-License-Identifier: GPL-3.0-or-later
// Policy administration through the dashboard, offscreen, on a real redis-server: policies created,
// edited, renamed, deleted and rolled back through the forms, checked in the stored hashes and the
// audit stream; two operators editing the same policy; every bad form input and malformed import
// file refused with a clear message and nothing changed; read-only and production connections;
// the deployment view's publish, progress, dry run and warnings.

#include "model/connection/connection_session.h"
#include "model/policy/audit_log.h"
#include "model/policy/operator_identity.h"
#include "model/policy/policy_file.h"
#include "model/tables/policy_list_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/redis_proxy.h"
#include "support/sluicectl_run.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/deploy/deployment_view.h"
#include "ui/policy/policy_editor.h"
#include "ui/policy/policy_history_view.h"
#include "ui/policy/policy_import_dialog.h"
#include "ui/policy/policy_panel.h"
#include "ui/policy/subject_rules_table.h"
#include "ui/widgets/state_palette.h"
#include "ui/window/main_window.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace sluice;
using model::ConnectionProfile;
using model::Policy;
using test::child;
using test::click;
using test::openDialog;
using test::typeInto;

namespace {

using Hash = QMap<QByteArray, QByteArray>;

void choose(QWidget *parent, const char *combo, const QString &text)
{
    auto *box = child<QComboBox>(parent, combo);
    const int index = box->findText(text);
    QVERIFY2(index >= 0, qPrintable(text));
    box->setCurrentIndex(index);
}

QString labelText(QWidget *parent, const char *name)
{
    auto *label = child<QLabel>(parent, name);
    return label && !label->isHidden() ? label->text() : QString(); // shown, even on a tab not in front
}

// True when some pixel of the cell, as the view draws it now, is `colour` (give or take antialiasing):
// its text is drawn in that colour.
bool cellDrawnIn(QTableView *table, int row, int column, const QColor &colour)
{
    const QImage image = table->viewport()->grab(table->visualRect(table->model()->index(row, column))).toImage();
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            if (std::abs(pixel.red() - colour.red()) + std::abs(pixel.green() - colour.green())
                    + std::abs(pixel.blue() - colour.blue())
                <= 12)
                return true;
        }
    }
    return false;
}

QStringList tableColumn(QTableWidget *table, int column)
{
    QStringList values;
    for (int row = 0; row < table->rowCount(); ++row)
        values << table->item(row, column)->text();
    return values;
}

// A publish review's rows as "policy/Field" -> the text in `column` (3: after publishing, 2: published).
QHash<QString, QString> changeRows(QDialog *review, int column = 3)
{
    QHash<QString, QString> rows;
    auto *table = child<QTableWidget>(review, "publishChanges");
    for (int row = 0; table && row < table->rowCount(); ++row)
        rows.insert(table->item(row, 0)->text() + QLatin1Char('/') + table->item(row, 1)->text(),
                    table->item(row, column)->text());
    return rows;
}

QStringList strings(std::initializer_list<const char *> items)
{
    QStringList list;
    for (const char *item : items)
        list << QString::fromUtf8(item);
    return list;
}

} // namespace

class TestPolicyAdmin : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_observer;
    QString m_namespace;
    QTemporaryDir m_files;

    QByteArray key(const QByteArray &suffix) const { return '{' + m_namespace.toUtf8() + '}' + suffix; }
    redis::RedisReply call(const QByteArrayList &command) { return test::syncCommand(*m_observer, command); }

    Hash storedHash(const QString &policy)
    {
        Hash hash;
        const auto reply = call({"HGETALL", key(":policy:" + policy.toUtf8())});
        for (qsizetype i = 0; i + 1 < reply.value.elements.size(); i += 2)
            hash.insert(reply.value.elements.at(i).bytes, reply.value.elements.at(i + 1).bytes);
        return hash;
    }

    QStringList storedNames()
    {
        QStringList names;
        for (const auto &name : call({"SMEMBERS", key(":policies")}).value.elements)
            names << QString::fromUtf8(name.bytes);
        names.sort();
        return names;
    }

    QVector<model::AuditEntry> audit()
    {
        QVector<model::AuditEntry> entries;
        for (const auto &element : call({"XRANGE", key(":audit"), "-", "+"}).value.elements) {
            QString error;
            if (auto entry = model::AuditLog::decode(element, &error))
                entries << *entry;
            else
                qWarning("%s", qPrintable(error));
        }
        return entries;
    }

    // Everything the namespace holds, to show that a refused input changed nothing.
    QByteArray snapshot()
    {
        QByteArrayList names;
        for (const auto &name : call({"KEYS", key("*")}).value.elements)
            names << name.bytes;
        std::sort(names.begin(), names.end());
        QByteArray all;
        for (const QByteArray &name : names)
            all += name + '=' + call({"DUMP", name}).value.bytes.toHex() + '\n';
        return all;
    }

    ConnectionProfile profile(const QString &name = QStringLiteral("dev")) const
    {
        ConnectionProfile profile;
        profile.name = name;
        profile.ns = m_namespace;
        profile.options = m_server.options();
        return profile;
    }

    // A main window on its own session, with the policy list read.
    QString store(const Policy &policy) { return test::storePolicy(*m_observer, m_namespace, policy); }

    static Policy policy(const QString &name, qint64 limit, qint64 windowMs, qint64 burst = 0)
    {
        return test::makePolicy(name, model::Algorithm::TokenBucket, limit, windowMs, burst);
    }

    static ui::PolicyEditor *waitForEditor()
    {
        ui::PolicyEditor *editor = nullptr;
        if (!QTest::qWaitFor([&] { return (editor = openDialog<ui::PolicyEditor>("policyEditor")) != nullptr; }, 5000))
            qWarning("no policy editor opened");
        return editor;
    }

    // Save, read the diff, confirm it; returns the diff's rows (field names).
    static QStringList saveThroughDiff(ui::PolicyEditor *editor)
    {
        click(editor, "saveButton");
        QDialog *diff = nullptr;
        if (!QTest::qWaitFor([&] { return (diff = openDialog<QDialog>("policyDiff")) != nullptr; }, 5000))
            return {QStringLiteral("no diff dialog")};
        const QStringList fields = tableColumn(child<QTableWidget>(diff, "diffTable"), 0);
        click(diff, "confirmButton");
        return fields;
    }

    // A window on a server of the test's own, so the function library is the test's alone: "api" stored,
    // nothing published, and `observer` reading the server beside the window.
    struct OwnDeployment {
        test::RedisProcess server;
        std::unique_ptr<redis::RedisClient> observer;
        std::unique_ptr<ui::MainWindow> window;
    };
    QString openOwnDeployment(OwnDeployment &own) const
    {
        if (!own.server.start())
            return own.server.errorString();
        ConnectionProfile dev = profile();
        dev.options = own.server.options();
        own.observer = std::make_unique<redis::RedisClient>(own.server.options());
        if (!test::openAndWait(*own.observer))
            return QStringLiteral("the observer did not connect");
        const QString stored
            = test::storePolicy(*own.observer, m_namespace, policy(QStringLiteral("api"), 100, 60000, 150));
        if (!stored.isEmpty())
            return stored;
        own.window = test::openMainWindow(dev);
        return {};
    }

    void openEditorOn(ui::MainWindow &window, const QString &name)
    {
        QTRY_VERIFY(window.policyPanel()->listModel()->policy(name).has_value());
        window.policyPanel()->selectPolicy(name);
        QCOMPARE(window.policyPanel()->selectedName(), name);
        QTest::keyClick(window.policyPanel()->table(), Qt::Key_Return);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_observer = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_observer));
    }

    void init() { m_namespace = test::uniqueNamespace("admin-"); }

    void createEditRenameDeleteAndRollBackThroughTheForms()
    {
        auto window = test::openMainWindow(profile());
        ui::PolicyPanel *panel = window->policyPanel();
        const QString me = model::operatorIdentity(QStringLiteral("sluice"));

        // Create.
        click(panel, "newPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "nameEdit", QStringLiteral("api"));
        choose(editor, "algorithmCombo", QStringLiteral("token_bucket"));
        typeInto(editor, "limitEdit", QStringLiteral("100"));
        typeInto(editor, "windowCountEdit", QStringLiteral("1"));
        choose(editor, "windowUnitCombo", QStringLiteral("minutes"));
        typeInto(editor, "burstEdit", QStringLiteral("150"));
        typeInto(editor, "descriptionEdit", QStringLiteral("public API"));
        QCOMPARE(labelText(editor, "policySummary"),
                 QStringLiteral("Up to 150 requests at once, then 100 per minute as tokens refill."));
        QCOMPARE(saveThroughDiff(editor),
                 strings({"Name", "Algorithm", "Limit", "Window", "Burst", "Shadow", "Description"}));
        QTRY_VERIFY(!openDialog<ui::PolicyEditor>("policyEditor"));
        Hash api = storedHash(QStringLiteral("api"));
        QCOMPARE(api.value("algorithm"), QByteArray("token_bucket"));
        QCOMPARE(api.value("limit"), QByteArray("100"));
        QCOMPARE(api.value("window_ms"), QByteArray("60000"));
        QCOMPARE(api.value("burst"), QByteArray("150"));
        QCOMPARE(api.value("shadow"), QByteArray("0"));
        QCOMPARE(api.value("description"), QByteArray("public API"));
        QCOMPARE(api.value("version"), QByteArray("1"));
        QCOMPARE(api.value("updated_by"), me.toUtf8());
        QCOMPARE(audit().size(), 1);
        QCOMPARE(audit().last().action, QStringLiteral("create"));
        QCOMPARE(audit().last().who, me);
        QTRY_COMPARE(panel->listModel()->rowCount(), 1);

        // Edit: the limit and the window's unit; the diff lists exactly those.
        openEditorOn(*window, QStringLiteral("api"));
        editor = waitForEditor();
        QVERIFY(editor);
        QCOMPARE(child<QLineEdit>(editor, "windowCountEdit")->text(), QStringLiteral("1"));
        QCOMPARE(child<QComboBox>(editor, "windowUnitCombo")->currentText(), QStringLiteral("minutes"));
        typeInto(editor, "limitEdit", QStringLiteral("200"));
        choose(editor, "windowUnitCombo", QStringLiteral("seconds"));
        QCOMPARE(saveThroughDiff(editor), strings({"Limit", "Window"}));
        QTRY_COMPARE(storedHash(QStringLiteral("api")).value("version"), QByteArray("2"));
        api = storedHash(QStringLiteral("api"));
        QCOMPARE(api.value("limit"), QByteArray("200"));
        QCOMPARE(api.value("window_ms"), QByteArray("1000"));
        QCOMPARE(api.value("burst"), QByteArray("150"));
        const model::AuditEntry update = audit().last();
        QCOMPARE(update.action, QStringLiteral("update"));
        QCOMPARE(update.before->limit, 100);
        QCOMPARE(update.after->limit, 200);
        QCOMPARE(update.after->windowMs, 1000);

        // Saving what is stored changes nothing.
        QTRY_COMPARE(panel->listModel()->policy(QStringLiteral("api"))->version, 2);
        openEditorOn(*window, QStringLiteral("api"));
        editor = waitForEditor();
        click(editor, "saveButton");
        QCOMPARE(labelText(editor, "saveStatus"), QStringLiteral("Nothing to save: the form matches version 2."));
        QVERIFY(!openDialog<QDialog>("policyDiff"));
        editor->reject();

        // Rename: one commit creates the new name and deletes the old, with a warning first.
        openEditorOn(*window, QStringLiteral("api"));
        editor = waitForEditor();
        typeInto(editor, "nameEdit", QStringLiteral("api.v2"));
        click(editor, "saveButton");
        QDialog *diff = nullptr;
        QTRY_VERIFY((diff = openDialog<QDialog>("policyDiff")));
        QVERIFY(labelText(diff, "diffWarning").contains(QLatin1String("unknown policy")));
        QCOMPARE(tableColumn(child<QTableWidget>(diff, "diffTable"), 0), strings({"Name"}));
        click(diff, "confirmButton");
        QTRY_COMPARE(storedNames(), strings({"api.v2"}));
        QVERIFY(storedHash(QStringLiteral("api")).isEmpty());
        QCOMPARE(storedHash(QStringLiteral("api.v2")).value("limit"), QByteArray("200"));
        QCOMPARE(storedHash(QStringLiteral("api.v2")).value("version"), QByteArray("1"));
        QVector<model::AuditEntry> entries = audit();
        QCOMPARE(entries.size(), 4);
        QCOMPARE(entries.at(2).action + QLatin1Char(' ') + entries.at(2).policy, QStringLiteral("create api.v2"));
        QCOMPARE(entries.at(3).action + QLatin1Char(' ') + entries.at(3).policy, QStringLiteral("delete api"));

        // A new policy may not take a stored name.
        QTRY_VERIFY(panel->listModel()->policy(QStringLiteral("api.v2")).has_value());
        click(panel, "newPolicyButton");
        editor = waitForEditor();
        typeInto(editor, "nameEdit", QStringLiteral("api.v2"));
        QCOMPARE(labelText(editor, "nameError"), QStringLiteral("a policy with this name exists"));
        QVERIFY(!child<QPushButton>(editor, "saveButton")->isEnabled());
        editor->done(QDialog::Rejected); // closed without the discard question (escapeAsksBeforeDroppingAnEdit)

        // Delete asks first; Cancel keeps it, Yes deletes it.
        panel->selectPolicy(QStringLiteral("api.v2"));
        click(panel, "deletePolicyButton");
        QMessageBox *ask = nullptr;
        QTRY_VERIFY((ask = openDialog<QMessageBox>("deleteConfirmation")));
        ask->button(QMessageBox::Cancel)->click();
        QVERIFY(test::settle(*window));
        QCOMPARE(storedNames(), strings({"api.v2"}));
        click(panel, "deletePolicyButton");
        QTRY_VERIFY((ask = openDialog<QMessageBox>("deleteConfirmation")));
        ask->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(storedNames().isEmpty());
        QCOMPARE(audit().last().action, QStringLiteral("delete"));
        QTRY_COMPARE(panel->listModel()->rowCount(), 0);

        // Roll "api" back to version 1 from the history: it is recreated as it was, and audited.
        ui::PolicyHistoryView *history = window->historyView();
        click(panel, "policyHistoryButton"); // nothing selected: the whole log
        history->showPolicy(QStringLiteral("api"));
        QTRY_COMPARE(history->auditModel()->rowCount(), 3); // delete, update, create
        QCOMPARE(history->auditModel()->entry(2).action, QStringLiteral("create"));
        history->table()->selectRow(2);
        click(history, "rollbackButton");
        QTRY_VERIFY((diff = openDialog<QDialog>("policyDiff")));
        QVERIFY(labelText(diff, "diffIntro").contains(QLatin1String("deleted")));
        click(diff, "confirmButton");
        QTRY_COMPARE(storedNames(), strings({"api"}));
        api = storedHash(QStringLiteral("api"));
        QCOMPARE(api.value("limit"), QByteArray("100"));
        QCOMPARE(api.value("window_ms"), QByteArray("60000"));
        QCOMPARE(audit().last().action, QStringLiteral("rollback"));
        QCOMPARE(audit().last().rollbackTo, 1);
        QCOMPARE(audit().last().who, me);

        // Compare two versions from the history: version 1 against version 2 of "api".
        QTRY_COMPARE(history->auditModel()->rowCount(), 4);
        history->table()->selectionModel()->clearSelection();
        history->table()->selectionModel()->select(history->auditModel()->index(2, 0),
                                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
        history->table()->selectionModel()->select(history->auditModel()->index(3, 0),
                                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
        click(history, "compareButton");
        QTRY_VERIFY((diff = openDialog<QDialog>("policyDiff")));
        auto *compared = child<QTableWidget>(diff, "diffTable");
        QCOMPARE(tableColumn(compared, 0), strings({"Limit", "Window"}));
        QCOMPARE(tableColumn(compared, 1), strings({"100", "1 minute"}));
        QCOMPARE(tableColumn(compared, 2), strings({"200", "1 second"}));
        QVERIFY(!child<QPushButton>(diff, "confirmButton"));
        diff->reject();

        // Rolling an existing policy back: a new version with the old definition.
        openEditorOn(*window, QStringLiteral("api"));
        editor = waitForEditor();
        typeInto(editor, "limitEdit", QStringLiteral("7"));
        saveThroughDiff(editor);
        QTRY_COMPARE(storedHash(QStringLiteral("api")).value("limit"), QByteArray("7"));
        QTRY_COMPARE(history->auditModel()->rowCount(), 5);
        history->table()->selectRow(1); // the rollback, whose definition is version 1's
        click(history, "rollbackButton");
        QTRY_VERIFY((diff = openDialog<QDialog>("policyDiff")));
        click(diff, "confirmButton");
        QTRY_COMPARE(storedHash(QStringLiteral("api")).value("limit"), QByteArray("100"));
        QCOMPARE(storedHash(QStringLiteral("api")).value("version"), QByteArray("3"));
        QCOMPARE(audit().last().action, QStringLiteral("rollback"));
    }

    // At 1024x700 the list shows every column of policies like the sandbox's (short names, a shadow
    // policy, a description longer than the room left) without scrolling sideways, the description
    // taking the room the others leave and reading from its start.
    void theListShowsEveryColumnAt1024x700()
    {
        using model::Algorithm;
        const QVector<std::pair<Policy, QString>> policies{
            {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 100, 60000, 150),
             QStringLiteral("Public API: per API key, bursts allowed")},
            {test::makePolicy(QStringLiteral("api-next"), Algorithm::TokenBucket, 60, 60000, 0, true),
             QStringLiteral("Proposed tighter API limit, watched in shadow mode for two weeks before it replaces api "
                            "(see the capacity review)")},
            {test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 5, 60000),
             QStringLiteral("Login attempts per account")},
            {test::makePolicy(QStringLiteral("webhooks"), Algorithm::LeakyBucket, 10, 1000, 20),
             QStringLiteral("Webhook deliveries per partner, smoothed")}};
        for (auto [policy, description] : policies) {
            policy.description = description;
            QCOMPARE(store(policy), QString());
        }
        auto window = test::openMainWindow(profile());
        window->resize(1024, 700);
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(window->policyPanel());
        QTableView *table = window->policyPanel()->table();
        QTRY_COMPARE(table->model()->rowCount(), int(policies.size()));
        QTest::qWait(100);
        QVERIFY2(!table->horizontalScrollBar()->isVisible(), "the list scrolls sideways");
        const int described = table->columnWidth(model::PolicyListModel::Description);
        QVERIFY2(described >= 150, qPrintable(QStringLiteral("the description has %1 px").arg(described)));
        // Its own delegate, eliding at the end where the view elides names in the middle.
        QVERIFY(table->itemDelegateForColumn(model::PolicyListModel::Description) != nullptr);
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
    }

    void linterAndSummaryFollowTheForm()
    {
        auto window = test::openMainWindow(profile());
        click(window->policyPanel(), "newPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "nameEdit", QStringLiteral("login"));
        choose(editor, "algorithmCombo", QStringLiteral("fixed_window"));
        QVERIFY(!child<QLineEdit>(editor, "burstEdit")->isVisible()); // a fixed window has no burst
        // The algorithm's help in the secondary text tone, whose contrast tst_state_palette checks on
        // both palettes (it was the palette's Mid, 1.6:1 on a light window and 1.2:1 on a dark one).
        QCOMPARE(child<QLabel>(editor, "algorithmHelp")->styleSheet(), ui::textStyle(ui::Tone::Muted));
        typeInto(editor, "limitEdit", QStringLiteral("5"));
        // A new fixed window opens at each subject's first call (seed 001's counter, the cheapest).
        QCOMPARE(labelText(editor, "policySummary"),
                 QStringLiteral("At most 5 requests per minute, counted in windows that open at each subject's "
                                "first call; up to twice that can pass around a window's edge."));
        QVERIFY(labelText(editor, "lintWarnings").contains(QLatin1String("twice the limit")));
        // Only a fixed window has a start to choose.
        auto *windowStart = child<QComboBox>(editor, "windowStartCombo");
        QVERIFY(windowStart->isVisible());
        choose(editor, "windowStartCombo", QStringLiteral("Aligned to the clock (the same windows for every subject)"));
        QCOMPARE(labelText(editor, "policySummary"),
                 QStringLiteral("At most 5 requests per minute, counted in windows aligned to the "
                                "clock; up to twice that can pass around a window's edge."));
        // The algorithm's warning stays while a number is wrong; the summary waits for the fix.
        typeInto(editor, "limitEdit", QStringLiteral("5.5"));
        QVERIFY(labelText(editor, "lintWarnings").contains(QLatin1String("twice the limit")));
        QVERIFY(labelText(editor, "policySummary").contains(QLatin1String("Fix the fields")));
        typeInto(editor, "limitEdit", QStringLiteral("5"));
        click(editor, "useSlidingWindowButton");
        QCOMPARE(child<QComboBox>(editor, "algorithmCombo")->currentText(), QStringLiteral("sliding_window"));
        QVERIFY(!windowStart->isVisible());
        QVERIFY(labelText(editor, "lintWarnings").isEmpty());
        child<QCheckBox>(editor, "shadowCheck")->click();
        QVERIFY(labelText(editor, "lintWarnings").contains(QLatin1String("Shadow mode is on")));
        QVERIFY(labelText(editor, "policySummary").contains(QLatin1String("Shadow mode: rejections are only counted")));
        child<QCheckBox>(editor, "shadowCheck")->click();
        choose(editor, "algorithmCombo", QStringLiteral("token_bucket"));
        typeInto(editor, "burstEdit", QStringLiteral("150"));
        child<QSpinBox>(editor, "typicalCostSpin")->setValue(200);
        QVERIFY(labelText(editor, "lintWarnings").contains(QLatin1String("smaller than a typical cost of 200")));
        typeInto(editor, "windowCountEdit", QStringLiteral("5"));
        choose(editor, "windowUnitCombo", QStringLiteral("milliseconds"));
        QVERIFY(labelText(editor, "lintWarnings").contains(QLatin1String("1 ms clock")));
        QVERIFY(child<QPushButton>(editor, "saveButton")->isEnabled()); // warnings allow saving
        editor->done(QDialog::Rejected);
    }

    // Escape (like Cancel and the window's close) drops an edit only once the operator says so; a form as
    // loaded, or as it was again, closes at once.
    void escapeAsksBeforeDroppingAnEdit()
    {
        QCOMPARE(store(policy(QStringLiteral("api"), 100, 60000, 150)), QString());
        auto window = test::openMainWindow(profile());
        QTRY_COMPARE(window->policyPanel()->listModel()->rowCount(), 1);
        openEditorOn(*window, QStringLiteral("api"));
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        QTest::keyClick(editor, Qt::Key_Escape);
        QTRY_VERIFY(!openDialog<ui::PolicyEditor>("policyEditor"));

        openEditorOn(*window, QStringLiteral("api"));
        QVERIFY((editor = waitForEditor()));
        typeInto(editor, "limitEdit", QStringLiteral("250"));
        QTest::keyClick(editor, Qt::Key_Escape);
        QMessageBox *ask = nullptr;
        QTRY_VERIFY((ask = editor->findChild<QMessageBox *>(QStringLiteral("discardConfirmation"))));
        QVERIFY2(ask->text().contains(QStringLiteral("\u201capi\u201d")), qPrintable(ask->text()));
        QCOMPARE(ask->defaultButton(), ask->button(QMessageBox::Cancel));
        QTest::keyClick(ask, Qt::Key_Escape); // Cancel: back to the form, the edit kept
        QTRY_VERIFY(!editor->findChild<QMessageBox *>(QStringLiteral("discardConfirmation")));
        QVERIFY(editor->isVisible());
        QCOMPARE(child<QLineEdit>(editor, "limitEdit")->text(), QStringLiteral("250"));

        QTest::keyClick(editor, Qt::Key_Escape);
        QTRY_VERIFY((ask = editor->findChild<QMessageBox *>(QStringLiteral("discardConfirmation"))));
        ask->button(QMessageBox::Discard)->click();
        QTRY_VERIFY(!openDialog<ui::PolicyEditor>("policyEditor"));
        QCOMPARE(storedHash(QStringLiteral("api")).value("limit"), QByteArray("100"));

        // Typed and typed back: nothing to lose, no question.
        openEditorOn(*window, QStringLiteral("api"));
        QVERIFY((editor = waitForEditor()));
        typeInto(editor, "limitEdit", QStringLiteral("250"));
        typeInto(editor, "limitEdit", QStringLiteral("100"));
        QTest::keyClick(editor, Qt::Key_Escape);
        QTRY_VERIFY(!openDialog<ui::PolicyEditor>("policyEditor"));
    }

    void concurrentEditsConflictAndLoseNothing()
    {
        QCOMPARE(store(policy(QStringLiteral("shared"), 100, 60000, 150)), QString());
        auto alice = test::openMainWindow(profile(QStringLiteral("alice")));
        auto bob = test::openMainWindow(profile(QStringLiteral("bob")));

        openEditorOn(*alice, QStringLiteral("shared"));
        ui::PolicyEditor *aliceEditor = waitForEditor();
        QVERIFY(aliceEditor);
        openEditorOn(*bob, QStringLiteral("shared"));
        ui::PolicyEditor *bobEditor = nullptr;
        QTRY_VERIFY((bobEditor = qobject_cast<ui::PolicyEditor *>(
                         bob->findChild<ui::PolicyEditor *>(QStringLiteral("policyEditor")))));

        // Bob saves first.
        typeInto(bobEditor, "limitEdit", QStringLiteral("300"));
        saveThroughDiff(bobEditor);
        QTRY_COMPARE(storedHash(QStringLiteral("shared")).value("version"), QByteArray("2"));

        // Alice's save, based on version 1, is a conflict: nothing of hers is written, Bob's stays.
        typeInto(aliceEditor, "burstEdit", QStringLiteral("500"));
        saveThroughDiff(aliceEditor);
        QDialog *conflict = nullptr;
        QTRY_VERIFY((conflict = openDialog<QDialog>("conflictDialog")));
        QVERIFY2(labelText(conflict, "conflictIntro").contains(QLatin1String("(version 2)")),
                 qPrintable(labelText(conflict, "conflictIntro")));
        auto *table = child<QTableWidget>(conflict, "conflictTable");
        QCOMPARE(tableColumn(table, 0), strings({"Limit", "Burst"}));
        QCOMPARE(tableColumn(table, 1), strings({"100", "150"})); // when she opened it
        QCOMPARE(tableColumn(table, 2), strings({"300", "150"})); // Bob's
        QCOMPARE(tableColumn(table, 3), strings({"100", "500"})); // hers
        QCOMPARE(storedHash(QStringLiteral("shared")).value("limit"), QByteArray("300"));
        QCOMPARE(storedHash(QStringLiteral("shared")).value("burst"), QByteArray("150"));

        // Reload: Bob's version in the form; her burst typed again and saved on top of his.
        click(conflict, "reloadButton");
        QCOMPARE(child<QLineEdit>(aliceEditor, "limitEdit")->text(), QStringLiteral("300"));
        typeInto(aliceEditor, "burstEdit", QStringLiteral("500"));
        QCOMPARE(saveThroughDiff(aliceEditor), strings({"Burst"}));
        QTRY_COMPARE(storedHash(QStringLiteral("shared")).value("version"), QByteArray("3"));
        QCOMPARE(storedHash(QStringLiteral("shared")).value("limit"), QByteArray("300"));
        QCOMPARE(storedHash(QStringLiteral("shared")).value("burst"), QByteArray("500"));

        // Again, and this time Alice chooses to overwrite: hers is stored, Bob's stays in the audit log.
        openEditorOn(*alice, QStringLiteral("shared"));
        aliceEditor = waitForEditor();
        QVERIFY(store(policy(QStringLiteral("shared"), 50, 60000, 500)).isEmpty()); // Bob, from elsewhere
        typeInto(aliceEditor, "limitEdit", QStringLiteral("400"));
        saveThroughDiff(aliceEditor);
        QTRY_VERIFY((conflict = openDialog<QDialog>("conflictDialog")));
        click(conflict, "overwriteButton");
        QTRY_COMPARE(storedHash(QStringLiteral("shared")).value("version"), QByteArray("5"));
        QCOMPARE(storedHash(QStringLiteral("shared")).value("limit"), QByteArray("400"));
        const QVector<model::AuditEntry> entries = audit();
        QCOMPARE(entries.at(entries.size() - 2).after->limit, 50);
        QCOMPARE(entries.last().before->limit, 50);
        QCOMPARE(entries.last().after->limit, 400);

        // Keep editing: the form keeps hers; the next save is compared with what is stored now.
        openEditorOn(*alice, QStringLiteral("shared"));
        aliceEditor = waitForEditor();
        QVERIFY(store(policy(QStringLiteral("shared"), 60, 60000, 500)).isEmpty());
        typeInto(aliceEditor, "limitEdit", QStringLiteral("70"));
        saveThroughDiff(aliceEditor);
        QTRY_VERIFY((conflict = openDialog<QDialog>("conflictDialog")));
        click(conflict, "keepEditingButton");
        QCOMPARE(child<QLineEdit>(aliceEditor, "limitEdit")->text(), QStringLiteral("70"));
        QVERIFY(labelText(aliceEditor, "saveStatus").contains(QLatin1String("version 6")));
        QCOMPARE(saveThroughDiff(aliceEditor), strings({"Limit"}));
        QTRY_COMPARE(storedHash(QStringLiteral("shared")).value("limit"), QByteArray("70"));
        QCOMPARE(storedHash(QStringLiteral("shared")).value("version"), QByteArray("7"));
    }

    void lostAnswerSaysTheSaveMayHaveHappened()
    {
        QCOMPARE(store(policy(QStringLiteral("shared"), 100, 60000, 150)), QString());
        test::RedisProxy proxy(m_server.port());
        QVERIFY(proxy.open());
        ConnectionProfile throughProxy = profile();
        throughProxy.options.port = proxy.port();
        throughProxy.options.commandTimeoutMs = 1500;
        auto window = test::openMainWindow(throughProxy);
        openEditorOn(*window, QStringLiteral("shared"));
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "limitEdit", QStringLiteral("300"));
        // The commit reaches the server and runs; its answer never comes back.
        proxy.dropRepliesAfter("Applies a set of policy changes atomically");
        saveThroughDiff(editor);
        QTRY_VERIFY_WITH_TIMEOUT(labelText(editor, "saveStatus").contains(QLatin1String("may have been applied")),
                                 10000);
        QVERIFY(!labelText(editor, "saveStatus").contains(QLatin1String("Nothing was applied")));
        QCOMPARE(proxy.markedConnections(), 1);
        QCOMPARE(storedHash(QStringLiteral("shared")).value("limit"), QByteArray("300"));
    }

    // Fields the form does not show yet (overrides, a penalty, a calendar) survive an edit of the others, and a
    // policy stored with a field this version does not know is not saved over.
    void fieldsTheFormDoesNotShowAreKept()
    {
        model::Policy ruled = policy(QStringLiteral("ruled"), 100, 60000, 150);
        ruled.blockMs = 600000;
        ruled.overrides = {{"partner-x", false, model::SubjectOverride::Kind::Limits, 1000, 0}};
        QCOMPARE(store(ruled), QString());
        auto window = test::openMainWindow(profile());
        openEditorOn(*window, QStringLiteral("ruled"));
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        // The penalty is on the form, in its largest exact unit.
        QCOMPARE(child<QLineEdit>(editor, "penaltyCountEdit")->text(), QStringLiteral("10"));
        QCOMPARE(child<QComboBox>(editor, "penaltyUnitCombo")->currentText(), QStringLiteral("minutes"));
        QVERIFY2(labelText(editor, "policySummary").contains(QLatin1String("stays rejected for 10 minutes")),
                 qPrintable(labelText(editor, "policySummary")));
        typeInto(editor, "limitEdit", QStringLiteral("120"));
        QCOMPARE(saveThroughDiff(editor), strings({"Limit"}));
        QTRY_COMPARE(storedHash(QStringLiteral("ruled")).value("limit"), QByteArray("120"));
        QCOMPARE(storedHash(QStringLiteral("ruled")).value("block_ms"), QByteArray("600000"));
        QVERIFY(storedHash(QStringLiteral("ruled")).value("overrides").contains("partner-x"));

        openEditorOn(*window, QStringLiteral("ruled"));
        editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "penaltyCountEdit", QStringLiteral("44641")); // 31 days are 44,640 minutes
        QCOMPARE(labelText(editor, "penaltyError"), QStringLiteral("at most 44640"));
        typeInto(editor, "penaltyCountEdit", QStringLiteral("5"));
        // A token bucket settles reservations: how far into debt is on the form too.
        QVERIFY(child<QLineEdit>(editor, "debtEdit")->isVisible());
        typeInto(editor, "debtEdit", QStringLiteral("-4"));
        QVERIFY(!labelText(editor, "debtError").isEmpty());
        typeInto(editor, "debtEdit", QStringLiteral("40"));
        QCOMPARE(saveThroughDiff(editor), strings({"Penalty", "Most debt"}));
        QTRY_COMPARE(storedHash(QStringLiteral("ruled")).value("block_ms"), QByteArray("300000"));
        QCOMPARE(storedHash(QStringLiteral("ruled")).value("max_debt"), QByteArray("40"));

        QVERIFY(call({"HSET", key(":policy:ruled"), "quota_zone", "eu"}).ok());
        window = test::openMainWindow(profile()); // reads the list anew (this write bypasses the audit log)
        openEditorOn(*window, QStringLiteral("ruled"));
        editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "limitEdit", QStringLiteral("130"));
        click(editor, "saveButton");
        QTRY_VERIFY(labelText(editor, "saveStatus").contains(QLatin1String("newer Sluice")));
        QCOMPARE(storedHash(QStringLiteral("ruled")).value("limit"), QByteArray("120"));
    }

    // A hot subject spread over buckets through the form: checked as typed against the policy's limit and its
    // penalty, saved with its diff row, said in the summary.
    void aHotSubjectIsSpreadThroughTheForm()
    {
        QCOMPARE(store(policy(QStringLiteral("global"), 100, 1000)), QString());
        auto window = test::openMainWindow(profile());
        openEditorOn(*window, QStringLiteral("global"));
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "spreadEdit", QStringLiteral("257"));
        QCOMPARE(labelText(editor, "spreadError"), QStringLiteral("at most 256"));
        typeInto(editor, "limitEdit", QStringLiteral("6"));
        typeInto(editor, "spreadEdit", QStringLiteral("8"));
        QVERIFY2(labelText(editor, "spreadError").contains(QLatin1String("must be at most 6")),
                 qPrintable(labelText(editor, "spreadError")));
        typeInto(editor, "limitEdit", QStringLiteral("100"));
        typeInto(editor, "penaltyCountEdit", QStringLiteral("5"));
        QVERIFY2(labelText(editor, "spreadError").contains(QLatin1String("penalty")),
                 qPrintable(labelText(editor, "spreadError")));
        typeInto(editor, "penaltyCountEdit", QString());
        QCOMPARE(labelText(editor, "spreadError"), QString());
        QVERIFY2(labelText(editor, "policySummary").contains(QLatin1String("spread over 8 buckets")),
                 qPrintable(labelText(editor, "policySummary")));
        QCOMPARE(saveThroughDiff(editor), strings({"Spread"}));
        QTRY_COMPARE(storedHash(QStringLiteral("global")).value("spread"), QByteArray("8"));

        openEditorOn(*window, QStringLiteral("global"));
        editor = waitForEditor();
        QVERIFY(editor);
        QCOMPARE(child<QLineEdit>(editor, "spreadEdit")->text(), QStringLiteral("8"));
        typeInto(editor, "spreadEdit", QString()); // back to one bucket per subject
        QCOMPARE(saveThroughDiff(editor), strings({"Spread"}));
        QTRY_VERIFY(!storedHash(QStringLiteral("global")).contains("spread"));
    }

    // The overrides tab: rows added, checked as typed, imported from CSV, searched, removed, and saved
    // with the policy; a calendar quota and a reservation timeout on the definition tab.
    void overridesCalendarAndReservationsThroughTheForm()
    {
        model::Policy quota = policy(QStringLiteral("quota"), 100, 60000);
        quota.overrides = {{"partner-x", false, model::SubjectOverride::Kind::Limits, 1000, 0}};
        QCOMPARE(store(quota), QString());
        auto window = test::openMainWindow(profile());
        openEditorOn(*window, QStringLiteral("quota"));
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        auto *tabs = child<QTabWidget>(editor, "policyTabs");
        QCOMPARE(tabs->tabText(1), QStringLiteral("&Overrides (1)"));
        tabs->setCurrentIndex(1);
        auto *rules = child<QTableWidget>(editor, "rulesTable");
        QCOMPARE(rules->rowCount(), 1);

        click(editor, "addRuleButton");
        QCOMPARE(rules->rowCount(), 2);
        rules->item(1, 0)->setText(QStringLiteral("bad{x"));
        QVERIFY2(labelText(editor, "rulesProblem").startsWith(QLatin1String("row 2: \"bad{x\" is not a subject")),
                 qPrintable(labelText(editor, "rulesProblem")));
        QVERIFY(!child<QPushButton>(editor, "saveButton")->isEnabled());
        rules->item(1, 0)->setText(QStringLiteral("batch-*"));
        rules->item(1, 2)->setText(QStringLiteral("2000000000"));
        QVERIFY2(labelText(editor, "rulesProblem").contains(QLatin1String("the limit is a whole number")),
                 qPrintable(labelText(editor, "rulesProblem")));
        rules->item(1, 2)->setText(QStringLiteral("50"));
        QVERIFY(labelText(editor, "rulesProblem").isEmpty());
        QCOMPARE(tabs->tabText(1), QStringLiteral("&Overrides (2)"));

        const QString csv = m_files.filePath(QStringLiteral("overrides.csv"));
        QVERIFY(test::writeFile(csv, "subject,rule\nvip-*,allow\nabuser-7,deny\npartner-x,2000,4000\n"));
        QCOMPARE(child<ui::SubjectRulesTable>(editor, "overridesTable")->importCsv(csv), QString());
        QCOMPARE(rules->rowCount(), 4); // partner-x replaced, not repeated
        const QString broken = m_files.filePath(QStringLiteral("broken.csv"));
        QVERIFY(test::writeFile(broken, "x,allow\n\"open,deny\n"));
        QVERIFY(child<ui::SubjectRulesTable>(editor, "overridesTable")
                    ->importCsv(broken)
                    .contains(QLatin1String("line 2")));
        QVERIFY(labelText(editor, "rulesProblem").contains(QLatin1String("nothing was imported")));
        QCOMPARE(rules->rowCount(), 4);

        typeInto(editor, "rulesSearch", QStringLiteral("VIP"));
        QStringList shown;
        for (int row = 0; row < rules->rowCount(); ++row)
            if (!rules->isRowHidden(row))
                shown << rules->item(row, 0)->text();
        QCOMPARE(shown, QStringList{QStringLiteral("vip-*")});
        rules->selectRow(rules->row(rules->findItems(QStringLiteral("vip-*"), Qt::MatchExactly).first()));
        click(editor, "removeRuleButton");
        QCOMPARE(rules->rowCount(), 3);
        typeInto(editor, "rulesSearch", QString());

        // A reservation waits 30 s for its settlement.
        tabs->setCurrentIndex(0);
        typeInto(editor, "reserveTimeoutEdit", QStringLiteral("30"));
        choose(editor, "reserveTimeoutUnitCombo", QStringLiteral("seconds"));
        QCOMPARE(saveThroughDiff(editor), strings({"Overrides", "Reservations wait"}));
        QTRY_COMPARE(storedHash(QStringLiteral("quota")).value("reserve_timeout_ms"), QByteArray("30000"));
        const QByteArray overrides = storedHash(QStringLiteral("quota")).value("overrides");
        QCOMPARE(QJsonDocument::fromJson(overrides).object(),
                 QJsonObject({{QStringLiteral("abuser-7"), QStringLiteral("deny")},
                              {QStringLiteral("batch-*"), QJsonObject{{QStringLiteral("limit"), 50}}},
                              {QStringLiteral("partner-x"),
                               QJsonObject{{QStringLiteral("limit"), 2000}, {QStringLiteral("burst"), 4000}}}}));

        // A monthly quota from the 15th at UTC+05:30.
        click(window->policyPanel(), "newPolicyButton");
        editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "nameEdit", QStringLiteral("monthly"));
        choose(editor, "algorithmCombo", QStringLiteral("fixed_window"));
        typeInto(editor, "limitEdit", QStringLiteral("10000"));
        choose(editor, "windowStartCombo", QStringLiteral("On the calendar: each month"));
        QVERIFY(!child<QLineEdit>(editor, "windowCountEdit")->isVisible());
        QVERIFY(child<QSpinBox>(editor, "anchorDaySpin")->isVisible());
        typeInto(editor, "utcOffsetEdit", QStringLiteral("+15:00"));
        QCOMPARE(labelText(editor, "calendarError"), QStringLiteral("from -12:00 to +14:00"));
        QVERIFY(!child<QPushButton>(editor, "saveButton")->isEnabled());
        typeInto(editor, "utcOffsetEdit", QStringLiteral("+05:30"));
        child<QSpinBox>(editor, "anchorDaySpin")->setValue(15);
        QVERIFY(labelText(editor, "calendarError").isEmpty());
        saveThroughDiff(editor);
        QTRY_COMPARE(storedHash(QStringLiteral("monthly")).value("calendar"), QByteArray("month"));
        QCOMPARE(storedHash(QStringLiteral("monthly")).value("utc_offset_minutes"), QByteArray("330"));
        QCOMPARE(storedHash(QStringLiteral("monthly")).value("anchor_day"), QByteArray("15"));
        QCOMPARE(storedHash(QStringLiteral("monthly")).value("window_ms"),
                 QByteArray::number(model::calendarNominalMs(model::Calendar::Month)));
    }

    // The namespace's lists: read when the dialog opens, saved through a review on the version read, a save
    // over someone else's refused with their version named and nothing changed.
    void namespaceListsThroughTheDialog()
    {
        QVERIFY(call({"HSET", key(":lists"), "entries", "{\"abuser-7\":\"deny\"}", "version", "1"}).ok());
        auto window = test::openMainWindow(profile());
        click(window->policyPanel(), "namespaceListsButton");
        QDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = openDialog<QDialog>("namespaceListsDialog")) != nullptr);
        QTRY_VERIFY(labelText(dialog, "listsStatus").startsWith(QLatin1String("Version 1")));
        auto *rules = child<QTableWidget>(dialog, "rulesTable");
        QCOMPARE(rules->rowCount(), 1);
        QVERIFY(rules->isColumnHidden(2)); // a list has no limits
        click(dialog, "addRuleButton");
        rules->item(1, 0)->setText(QStringLiteral("scraper-*"));
        rules->item(1, 1)->setText(QStringLiteral("limit"));
        QVERIFY2(labelText(dialog, "rulesProblem").contains(QLatin1String("allow or deny")),
                 qPrintable(labelText(dialog, "rulesProblem")));
        QVERIFY(!child<QPushButton>(dialog, "saveListsButton")->isEnabled());
        rules->item(1, 1)->setText(QStringLiteral("deny"));
        click(dialog, "saveListsButton");
        QDialog *review = nullptr;
        QTRY_VERIFY((review = openDialog<QDialog>("policyDiff")) != nullptr);
        QCOMPARE(child<QTableWidget>(review, "diffTable")->item(0, 2)->text(), QStringLiteral("scraper-*: deny"));
        click(review, "confirmButton");
        QTRY_COMPARE(call({"HGET", key(":lists"), "version"}).value.bytes, QByteArray("2"));
        QCOMPARE(QJsonDocument::fromJson(call({"HGET", key(":lists"), "entries"}).value.bytes).object().size(), 2);
        QCOMPARE(audit().last().action, QStringLiteral("lists"));

        click(window->policyPanel(), "namespaceListsButton");
        QTRY_VERIFY((dialog = openDialog<QDialog>("namespaceListsDialog")) != nullptr);
        QTRY_VERIFY(labelText(dialog, "listsStatus").startsWith(QLatin1String("Version 2")));
        QVERIFY(call({"HSET", key(":lists"), "version", "3"}).ok()); // someone else saved
        const QByteArray before = snapshot();
        rules = child<QTableWidget>(dialog, "rulesTable");
        rules->selectRow(0);
        click(dialog, "removeRuleButton");
        click(dialog, "saveListsButton");
        QTRY_VERIFY((review = openDialog<QDialog>("policyDiff")) != nullptr);
        click(review, "confirmButton");
        QTRY_VERIFY(labelText(dialog, "listsStatus").contains(QLatin1String("now version 3")));
        QCOMPARE(snapshot(), before);
        dialog->reject();
    }

    void damagedPolicyIsNamedAndTheOthersListed()
    {
        QCOMPARE(store(policy(QStringLiteral("good"), 100, 60000)), QString());
        QCOMPARE(store(policy(QStringLiteral("bad"), 5, 60000)), QString());
        QVERIFY(call({"HSET", key(":policy:bad"), "limit", "abc"}).ok());
        auto window = test::openMainWindow(profile());
        ui::PolicyPanel *panel = window->policyPanel();
        QTRY_VERIFY(panel->listModel()->policy(QStringLiteral("good")).has_value());
        QVERIFY(!panel->listModel()->policy(QStringLiteral("bad")).has_value());
        const QString status = labelText(panel, "policyStatus");
        QVERIFY2(status.contains(QLatin1String("Damaged")) && status.contains(QLatin1String("bad (")),
                 qPrintable(status));
    }

    void badFormInputsAreRefusedAndChangeNothing_data()
    {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QStringList>("edits"); // field, text, field, text...
        QTest::addColumn<QString>("errorLabel");
        QTest::addColumn<QString>("message");
        auto row = [](const char *name, const char *algorithm, const char *unit, const QStringList &edits,
                      const char *label, const char *message) {
            QTest::newRow(name) << QString::fromUtf8(algorithm) << QString::fromUtf8(unit) << edits
                                << QString::fromUtf8(label) << QString::fromUtf8(message);
        };
        const char *tb = "token_bucket";
        row("name empty", tb, "seconds", strings({"nameEdit", ""}), "nameError", "required");
        row("name with a space", tb, "seconds", strings({"nameEdit", "has space"}), "nameError", "letters, digits");
        row("name with a semicolon", tb, "seconds", strings({"nameEdit", "semi;colon"}), "nameError",
            "letters, digits");
        row("name not ASCII", tb, "seconds", strings({"nameEdit", "l\u00f6gin"}), "nameError", "letters, digits");
        row("name with a slash", tb, "seconds", strings({"nameEdit", "a/b"}), "nameError", "letters, digits");
        row("name with a quote", tb, "seconds", strings({"nameEdit", "x\"y"}), "nameError", "letters, digits");
        row("name too long", tb, "seconds", QStringList{QStringLiteral("nameEdit"), QString(65, QLatin1Char('x'))},
            "nameError", "1 to 64");
        row("name taken", tb, "seconds", strings({"nameEdit", "taken"}), "nameError", "exists");
        row("limit empty", tb, "seconds", strings({"limitEdit", ""}), "limitError", "required");
        row("limit blank", tb, "seconds", strings({"limitEdit", "   "}), "limitError", "required");
        row("limit letters", tb, "seconds", strings({"limitEdit", "abc"}), "limitError", "not a number");
        row("limit negative", tb, "seconds", strings({"limitEdit", "-5"}), "limitError", "must be positive");
        row("limit zero", tb, "seconds", strings({"limitEdit", "0"}), "limitError", "at least 1");
        row("limit fraction", tb, "seconds", strings({"limitEdit", "1.5"}), "limitError", "whole number");
        row("limit exponent", tb, "seconds", strings({"limitEdit", "1e3"}), "limitError", "whole number");
        row("limit too large", tb, "seconds", strings({"limitEdit", "1000000001"}), "limitError", "at most 1000000000");
        row("limit overflows", tb, "seconds", strings({"limitEdit", "99999999999999999999"}), "limitError",
            "at most 1000000000");
        row("limit with a unit", tb, "seconds", strings({"limitEdit", "10 requests"}), "limitError", "not a number");
        row("limit in hex", tb, "seconds", strings({"limitEdit", "0x10"}), "limitError", "not a number");
        row("limit with a plus", tb, "seconds", strings({"limitEdit", "+5"}), "limitError", "not a number");
        row("window empty", tb, "seconds", strings({"windowCountEdit", ""}), "windowError", "required");
        row("window zero", tb, "seconds", strings({"windowCountEdit", "0"}), "windowError", "at least 1");
        row("window negative", tb, "seconds", strings({"windowCountEdit", "-1"}), "windowError", "must be positive");
        row("window fraction", tb, "minutes", strings({"windowCountEdit", "2.5"}), "windowError", "whole number");
        row("window letters", tb, "seconds", strings({"windowCountEdit", "abc"}), "windowError", "not a number");
        row("window 8 days", tb, "days", strings({"windowCountEdit", "8"}), "windowError", "one week");
        row("window 169 hours", tb, "hours", strings({"windowCountEdit", "169"}), "windowError", "one week");
        row("window 10081 minutes", tb, "minutes", strings({"windowCountEdit", "10081"}), "windowError", "one week");
        row("window too many ms", tb, "milliseconds", strings({"windowCountEdit", "604800001"}), "windowError",
            "one week");
        row("burst zero", tb, "seconds", strings({"burstEdit", "0"}), "burstError", "at least 1");
        row("burst negative", "gcra", "seconds", strings({"burstEdit", "-1"}), "burstError", "must be positive");
        row("burst letters", "leaky_bucket", "seconds", strings({"burstEdit", "abc"}), "burstError", "not a number");
        row("burst fraction", tb, "seconds", strings({"burstEdit", "1.0"}), "burstError", "whole number");
        row("burst too large", tb, "seconds", strings({"burstEdit", "1000000001"}), "burstError", "at most 1000000000");
        row("description too long", tb, "seconds",
            QStringList{QStringLiteral("descriptionEdit"), QString(1025, QLatin1Char('d'))}, "descriptionError",
            "at most 1024 characters");
        row("burst refilling in more than 2^52 ms", "gcra", "days",
            strings({"limitEdit", "1", "burstEdit", "1000000000", "windowCountEdit", "7"}), "burstError",
            "at most 7446427 with a limit of 1 per 604800000 ms: an empty bucket must refill within 2^52 ms");
        row("sliding log too many entries", "sliding_log", "seconds", strings({"limitEdit", "100001"}), "limitError",
            "at most 100000");
        row("concurrency too many leases", "concurrency", "seconds", strings({"limitEdit", "200000"}), "limitError",
            "at most 100000");
    }

    void badFormInputsAreRefusedAndChangeNothing()
    {
        QFETCH(QString, algorithm);
        QFETCH(QString, unit);
        QFETCH(QStringList, edits);
        QFETCH(QString, errorLabel);
        QFETCH(QString, message);
        QCOMPARE(store(policy(QStringLiteral("taken"), 10, 1000)), QString());
        const QByteArray before = snapshot();
        auto window = test::openMainWindow(profile());
        QTRY_COMPARE(window->policyPanel()->listModel()->rowCount(), 1);
        click(window->policyPanel(), "newPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "nameEdit", QStringLiteral("fresh"));
        choose(editor, "algorithmCombo", algorithm);
        typeInto(editor, "limitEdit", QStringLiteral("10"));
        typeInto(editor, "windowCountEdit", QStringLiteral("1"));
        choose(editor, "windowUnitCombo", unit);
        QVERIFY(child<QPushButton>(editor, "saveButton")->isEnabled()); // valid before the bad input
        for (qsizetype i = 0; i + 1 < edits.size(); i += 2)
            typeInto(editor, edits.at(i).toUtf8().constData(), edits.at(i + 1));

        const QString shown = labelText(editor, errorLabel.toUtf8().constData());
        QVERIFY2(shown.contains(message), qPrintable(QStringLiteral("%1 shows \"%2\"").arg(errorLabel, shown)));
        QVERIFY(!child<QPushButton>(editor, "saveButton")->isEnabled());
        QVERIFY(!editor->formPolicy().has_value());
        QVERIFY(labelText(editor, "policySummary").contains(QLatin1String("Fix the fields")));
        editor->save(); // as a stale shortcut would
        QVERIFY(test::settle(*window));
        QVERIFY(!openDialog<QDialog>("policyDiff"));
        QCOMPARE(snapshot(), before);
    }

    // Quotas of real APIs fit the form: no field complains, and Save is enabled.
    void wideQuotasAreAcceptedByTheForm_data()
    {
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<int>("days");
        QTest::newRow("token bucket, 1e9 a week") << QStringLiteral("token_bucket") << qint64(1000000000) << 7;
        QTest::newRow("gcra, 1e8 a day") << QStringLiteral("gcra") << qint64(100000000) << 1;
        QTest::newRow("sliding window, 1e9 a week") << QStringLiteral("sliding_window") << qint64(1000000000) << 7;
    }

    void wideQuotasAreAcceptedByTheForm()
    {
        QFETCH(QString, algorithm);
        QFETCH(qint64, limit);
        QFETCH(int, days);
        auto window = test::openMainWindow(profile());
        click(window->policyPanel(), "newPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        typeInto(editor, "nameEdit", QStringLiteral("quota"));
        choose(editor, "algorithmCombo", algorithm);
        typeInto(editor, "limitEdit", QString::number(limit));
        typeInto(editor, "windowCountEdit", QString::number(days));
        choose(editor, "windowUnitCombo", QStringLiteral("days"));
        QVERIFY(child<QPushButton>(editor, "saveButton")->isEnabled());
        const auto policy = editor->formPolicy();
        QVERIFY(policy.has_value());
        QCOMPARE(policy->limit, limit);
        QCOMPARE(policy->windowMs, days * qint64(86400000));
    }

    void malformedImportFilesAreRefusedAndChangeNothing_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        auto row = [](const char *name, const QByteArray &content, const char *message) {
            QTest::newRow(name) << content << QString::fromUtf8(message);
        };
        const QByteArray good
            = test::js("{'name': 'good', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000}");
        row("empty file", "", "not valid JSON");
        row("not JSON", "policies: api", "not valid JSON");
        row("truncated", test::js("{'policies': [{'name': 'api'"), "not valid JSON");
        row("array at the top", "[]", "must hold a JSON object");
        row("no policies", "{}", "\"policies\": is required and must be an array");
        row("policies an object", test::js("{'policies': {}}"), "must be an array, not an object");
        row("a policy that is a number", test::js("{'policies': [1]}"), "must be an object, not a number");
        row("name missing", test::js("{'policies': [{'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000}]}"),
            "\"name\": is required and must be a string");
        row("name a number",
            test::js("{'policies': [{'name': 5, 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000}]}"),
            "must be a string, not a number");
        row("name with a space",
            test::js("{'policies': [{'name': 'a b', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000}]}"),
            "letters, digits");
        row("algorithm missing", test::js("{'policies': [{'name': 'a', 'limit': 1, 'window_ms': 1000}]}"),
            "\"algorithm\": is required");
        row("algorithm unknown",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'leaky', 'limit': 1, 'window_ms': 1000}]}"),
            "\"leaky\" is not one of");
        row("limit a string",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': '100', 'window_ms': 1000}]}"),
            "must be a whole number, not a string");
        row("limit a fraction",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1.5, 'window_ms': 1000}]}"),
            "must be a whole number, not 1.5");
        row("limit negative",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': -3, 'window_ms': 1000}]}"),
            "must be positive");
        row("limit too large",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 2000000000, 'window_ms': 1000}]}"),
            "from 1 to 1000000000");
        row("window missing", test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1}]}"),
            "\"window_ms\": is required");
        row("window past a week",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 691200000}]}"),
            "one week");
        row("burst a fraction",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000, 'burst': 2.5}]}"),
            "\"burst\": must be a whole number");
        row("shadow a string",
            test::js(
                "{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000, 'shadow': 'yes'}]}"),
            "must be true or false");
        row("description a number",
            test::js(
                "{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limit': 1, 'window_ms': 1000, 'description': 5}]}"),
            "\"description\": must be a string");
        row("unknown field",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'gcra', 'limt': 1, 'window_ms': 1000}]}"),
            "\"limt\": is not a policy field");
        row("duplicate names", "{\"policies\": [" + good + "," + good + "]}", "appears more than once");
        row("unknown top-level key", "{\"policies\": [" + good + "], \"version\": 2}", "not known at the top level");
        row("one good, one bad",
            "{\"policies\": [" + good
                + test::js(", {'name': 'bad', 'algorithm': 'gcra', 'limit': 0, 'window_ms': 1}]}"),
            "policy \"bad\", field \"limit\"");
        row("sliding log past its entries",
            test::js("{'policies': [{'name': 'a', 'algorithm': 'sliding_log', 'limit': 100001, 'window_ms': 1000}]}"),
            "at most 100000");
        row("missing file", "<missing>", "No such file");
        row("too large to be a policy file", "<huge>", "more than the 16777216 a policy file may have");
    }

    void malformedImportFilesAreRefusedAndChangeNothing()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QCOMPARE(store(policy(QStringLiteral("good"), 99, 1000)), QString());
        const QByteArray before = snapshot();
        auto window = test::openMainWindow(profile());

        const QString path = m_files.filePath(
            QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')));
        if (content != "<missing>") {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            if (content == "<huge>")
                QVERIFY(file.resize(17 * 1024 * 1024));
            else
                file.write(content);
        }
        window->policyPanel()->importFile(path);
        QDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = openDialog<QDialog>("policyImport")));
        auto *errors = child<QListWidget>(dialog, "importErrors");
        QTRY_VERIFY(errors->isVisible());
        QStringList shown;
        for (int row = 0; row < errors->count(); ++row)
            shown << errors->item(row)->text();
        QVERIFY2(shown.join(QLatin1Char('\n')).contains(message), qPrintable(shown.join(QLatin1Char('\n'))));
        QVERIFY(labelText(dialog, "importSummary").contains(QLatin1String("nothing will change")));
        QVERIFY(!child<QPushButton>(dialog, "applyButton")->isEnabled());
        qobject_cast<ui::PolicyImportDialog *>(dialog)->apply(); // as a stale button would
        QVERIFY(test::settle(*window));
        QCOMPARE(snapshot(), before);
        dialog->reject();
    }

    void importPreviewsThenAppliesAllAndExportRoundTrips()
    {
        QCOMPARE(store(policy(QStringLiteral("keep"), 10, 1000)), QString());
        QCOMPARE(store(policy(QStringLiteral("old"), 10, 1000)), QString());
        auto window = test::openMainWindow(profile());
        const QString path = m_files.filePath(QStringLiteral("import.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(test::js("{'policies': ["
                            "{'name': 'keep', 'algorithm': 'token_bucket', 'limit': 10, 'window_ms': 1000},"
                            "{'name': 'login', 'algorithm': 'fixed_window', 'limit': 5, 'window_ms': 60000},"
                            "{'name': 'old', 'algorithm': 'token_bucket', 'limit': 20, 'window_ms': 1000}]}"));
        file.close();
        window->policyPanel()->importFile(path);
        QDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = openDialog<QDialog>("policyImport")));
        auto *preview = child<QTableWidget>(dialog, "importPreview");
        QTRY_COMPARE(preview->rowCount(), 3);
        QCOMPARE(tableColumn(preview, 0), strings({"login", "old", "keep"}));
        QCOMPARE(tableColumn(preview, 1), strings({"create", "update", "unchanged"}));
        QCOMPARE(preview->item(0, 2)->text(), QStringLiteral("fixed_window, 5 per minute")); // what it creates
        QCOMPARE(preview->item(1, 2)->text(),
                 QStringLiteral("limit 10 \u2192 20, burst 10 \u2192 20")); // burst follows the limit
        QCOMPARE(labelText(dialog, "importSummary"),
                 QStringLiteral("1 to create, 1 to update, 0 to delete, 1 unchanged."));
        QCOMPARE(audit().size(), 2); // nothing applied by the preview

        // Someone saves "old" after the preview: the apply is refused whole, and the preview is made again.
        QCOMPARE(store(policy(QStringLiteral("old"), 15, 1000)), QString());
        click(dialog, "applyButton");
        QTRY_VERIFY(labelText(dialog, "importSummary").contains(QLatin1String("Someone saved in between")));
        QTRY_COMPARE(preview->item(1, 2)->text(), QStringLiteral("limit 15 \u2192 20, burst 15 \u2192 20"));
        QCOMPARE(storedNames(), strings({"keep", "old"}));
        QCOMPARE(audit().size(), 3); // only the other save
        click(dialog, "applyButton");
        QTRY_COMPARE(storedNames(), strings({"keep", "login", "old"}));
        QCOMPARE(storedHash(QStringLiteral("old")).value("limit"), QByteArray("20"));
        QCOMPARE(audit().size(), 5);

        // The same file again: nothing to do.
        window->policyPanel()->importFile(path);
        QTRY_VERIFY((dialog = openDialog<QDialog>("policyImport")));
        QTRY_VERIFY(labelText(dialog, "importSummary").contains(QLatin1String("nothing to do")));
        QVERIFY(!child<QPushButton>(dialog, "applyButton")->isEnabled());
        // The file broken and then fixed in an editor: read again each time, without choosing it again.
        const auto rewrite = [&path](const QByteArray &content) {
            QFile again(path);
            return again.open(QIODevice::WriteOnly | QIODevice::Truncate) && again.write(content) == content.size();
        };
        QVERIFY(rewrite("{'policies': ["));
        click(dialog, "rereadButton");
        QTRY_VERIFY(labelText(dialog, "importSummary").startsWith(QLatin1String("Problems in the file")));
        QVERIFY(!child<QPushButton>(dialog, "applyButton")->isEnabled());
        QVERIFY(rewrite(test::js("{'policies': [{'name': 'keep', 'algorithm': 'token_bucket', 'limit': 10, "
                                 "'window_ms': 1000},"
                                 "{'name': 'login', 'algorithm': 'fixed_window', 'limit': 7, 'window_ms': 60000},"
                                 "{'name': 'old', 'algorithm': 'token_bucket', 'limit': 20, 'window_ms': 1000}]}")));
        click(dialog, "rereadButton");
        preview = child<QTableWidget>(dialog, "importPreview");
        QTRY_VERIFY(preview->isVisible() && preview->rowCount() == 3);
        QCOMPARE(preview->item(0, 1)->text(), QStringLiteral("update"));
        QCOMPARE(preview->item(0, 2)->text(), QStringLiteral("limit 5 \u2192 7, burst 5 \u2192 7"));
        QVERIFY(child<QPushButton>(dialog, "applyButton")->isEnabled());
        dialog->reject();

        // Export writes what is stored, in the same format; importing it back changes nothing.
        QTRY_COMPARE(window->policyPanel()->listModel()->rowCount(), 3);
        const QString exported = m_files.filePath(QStringLiteral("export.json"));
        QCOMPARE(window->policyPanel()->exportTo(exported), QString());
        QFile written(exported);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const model::PolicyFile parsed = model::PolicyFile::parse(written.readAll());
        QVERIFY(parsed.ok());
        QCOMPARE(parsed.policies.size(), 3);
        QCOMPARE(parsed.policies.at(1).name, QStringLiteral("login"));
        QCOMPARE(parsed.policies.at(1).algorithm, model::Algorithm::FixedWindow);
    }

    void readOnlyConnectionsDisableEveryWrite()
    {
        QCOMPARE(store(policy(QStringLiteral("api"), 10, 1000)), QString());
        ConnectionProfile readOnly = profile(QStringLiteral("auditor"));
        readOnly.readOnly = true;
        auto window = test::openMainWindow(readOnly);
        ui::PolicyPanel *panel = window->policyPanel();
        QTRY_COMPARE(panel->listModel()->rowCount(), 1);
        panel->selectPolicy(QStringLiteral("api"));
        for (const char *button : {"newPolicyButton", "deletePolicyButton", "importPoliciesButton"})
            QVERIFY2(!child<QPushButton>(panel, button)->isEnabled(), button);
        QVERIFY(child<QPushButton>(panel, "editPolicyButton")->isEnabled()); // to view it
        QCOMPARE(child<QPushButton>(panel, "editPolicyButton")->text(), QStringLiteral("View\u2026"));
        click(panel, "editPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        QVERIFY(editor);
        for (const char *field : {"nameEdit", "limitEdit", "windowCountEdit", "burstEdit", "descriptionEdit",
                                  "penaltyCountEdit", "debtEdit", "reserveTimeoutEdit", "spreadEdit", "utcOffsetEdit"})
            QVERIFY2(!child<QLineEdit>(editor, field)->isEnabled(), field);
        QVERIFY(!child<QComboBox>(editor, "algorithmCombo")->isEnabled());
        for (const char *button : {"addRuleButton", "removeRuleButton", "importRulesButton"})
            QVERIFY2(!child<QPushButton>(editor, button)->isEnabled(), button);
        QVERIFY(!child<QPushButton>(editor, "saveButton")->isEnabled());
        editor->save();
        QVERIFY(test::settle(*window));
        QVERIFY(!openDialog<QDialog>("policyDiff"));
        editor->reject();
        click(panel, "namespaceListsButton");
        QDialog *lists = nullptr;
        QTRY_VERIFY((lists = openDialog<QDialog>("namespaceListsDialog")) != nullptr);
        QTRY_VERIFY(labelText(lists, "listsStatus").contains(QLatin1String("Never saved")));
        QVERIFY(!child<QPushButton>(lists, "saveListsButton")->isEnabled());
        QVERIFY(!child<QPushButton>(lists, "addRuleButton")->isEnabled());
        lists->reject();
        QVERIFY(!child<QPushButton>(window->deploymentView(), "deploymentPublishButton")->isEnabled());
        ui::PolicyHistoryView *history = window->historyView();
        history->showPolicy(QStringLiteral("api"));
        QTRY_COMPARE(history->auditModel()->rowCount(), 1);
        history->table()->selectRow(0);
        QVERIFY(!child<QPushButton>(history, "rollbackButton")->isEnabled());
        QVERIFY(child<QPushButton>(history, "compareButton")->isEnabled());
        QCOMPARE(audit().size(), 1);
    }

    // The History tab in view follows the audit log: a change made by someone else shows up by itself.
    void historyFollowsTheAuditLog()
    {
        for (const QString &name : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")})
            QCOMPARE(store(policy(name, 10, 1000)), QString());
        auto window = test::openMainWindow(profile());
        QTest::keyClick(window.get(), Qt::Key_9, Qt::ControlModifier);
        ui::PolicyHistoryView *history = window->historyView();
        QTRY_VERIFY(history->isVisible());
        QTRY_COMPARE(history->auditModel()->rowCount(), 3);               // the first view shows what is stored
        QCOMPARE(store(policy(QStringLiteral("d"), 5, 1000)), QString()); // another client, not this window
        QTRY_COMPARE_WITH_TIMEOUT(history->auditModel()->rowCount(), 4, 8000);
        QCOMPARE(history->auditModel()->entry(0).policy, QStringLiteral("d"));
        QCOMPARE(audit().size(), 4);
    }

    void productionConfirmsEverySave()
    {
        ConnectionProfile production = profile(QStringLiteral("prod"));
        production.environment = ConnectionProfile::Environment::Production;
        auto window = test::openMainWindow(production);
        click(window->policyPanel(), "newPolicyButton");
        ui::PolicyEditor *editor = waitForEditor();
        typeInto(editor, "nameEdit", QStringLiteral("api"));
        saveThroughDiff(editor);
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = openDialog<QMessageBox>("writeConfirmation")));
        QVERIFY(confirm->text().contains(QLatin1String("create policy")));
        confirm->button(QMessageBox::Cancel)->click();
        QVERIFY(test::settle(*window));
        QVERIFY(storedNames().isEmpty());
        QVERIFY(editor->isVisible()); // still editing
        saveThroughDiff(editor);
        QTRY_VERIFY((confirm = openDialog<QMessageBox>("writeConfirmation")));
        confirm->button(QMessageBox::Yes)->click();
        QTRY_COMPARE(storedNames(), strings({"api"}));
    }

    // The publish review from the keyboard alone: Tab leaves the table, every button has its own mnemonic,
    // Enter presses the safe default (Cancel) and Alt+P publishes.
    void publishByKeyboardOnly()
    {
        OwnDeployment own;
        const QString opened = openOwnDeployment(own);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        redis::RedisClient &observer = *own.observer;
        const std::unique_ptr<ui::MainWindow> &window = own.window;
        ui::DeploymentView *view = window->deploymentView();
        QTRY_COMPARE(view->deploymentModel()->rowCount(), 1);
        auto openReview = [&] {
            click(view, "deploymentPublishButton");
            QDialog *review = nullptr;
            [&] { QTRY_VERIFY((review = openDialog<QDialog>("publishReview"))); }();
            review->activateWindow();
            [&] { QVERIFY(QTest::qWaitForWindowActive(review)); }();
            auto *changes = child<QTableWidget>(review, "publishChanges");
            changes->setFocus();
            return std::make_pair(review, changes);
        };

        auto [review, changes] = openReview();
        QTest::keyClick(changes, Qt::Key_Tab);
        // The dialog's own focus, which holds whether or not a loaded machine has just activated another window.
        QVERIFY2(review->focusWidget() && review->focusWidget() != changes, "Tab stays in the table");
        QSet<QChar> mnemonics;
        for (const QAbstractButton *button : review->findChildren<QAbstractButton *>()) {
            if (!button->isVisible())
                continue;
            const qsizetype at = button->text().indexOf(QLatin1Char('&'));
            QVERIFY2(at >= 0 && at + 1 < button->text().size(), qPrintable(button->text()));
            const QChar letter = button->text().at(at + 1).toLower();
            QVERIFY2(!mnemonics.contains(letter), qPrintable(button->text()));
            mnemonics.insert(letter);
        }
        QCOMPARE(child<QPushButton>(review, "confirmButton")->text(), QStringLiteral("&Publish version 1"));
        changes->setFocus();
        QTest::keyClick(changes, Qt::Key_Return);
        QTRY_VERIFY(!review->isVisible());
        QCOMPARE(review->result(), int(QDialog::Rejected));
        QCOMPARE(test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(), 0);

        std::tie(review, changes) = openReview();
        QTest::keyClick(changes, Qt::Key_P, Qt::AltModifier);
        QTRY_COMPARE(test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(), 1);
        QTRY_VERIFY(labelText(view, "deploymentStatus").contains(QLatin1String("Published version 1")));
    }

    void deploymentViewPublishesNodeByNodeAndWarnsOfDifferences()
    {
        OwnDeployment own;
        const QString opened = openOwnDeployment(own);
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        redis::RedisClient &observer = *own.observer;
        const std::unique_ptr<ui::MainWindow> &window = own.window;
        ui::DeploymentView *view = window->deploymentView();
        auto *record = child<QLabel>(view, "publishedRecord");
        QTRY_VERIFY(record->text().contains(QLatin1String("Nothing published yet")));
        QTRY_VERIFY(labelText(window->policyPanel(), "publishWarning")
                        .contains(QLatin1String("No library has been published")));
        QTRY_COMPARE(view->deploymentModel()->rowCount(), 1);
        QCOMPARE(view->deploymentModel()->index(0, model::DeploymentModel::State).data().toString(),
                 QStringLiteral("missing"));

        // Dry run: what a publish would change, field by field in the form's words; the generated
        // table one click away; nothing loaded.
        click(view, "dryRunButton");
        QDialog *dryRun = nullptr;
        QTRY_VERIFY((dryRun = openDialog<QDialog>("dryRunDialog")));
        QCOMPARE(changeRows(dryRun).value(QStringLiteral("api/Burst")),
                 QLocale().toString(150) + QStringLiteral(" (added)"));
        QCOMPARE(changeRows(dryRun).value(QStringLiteral("api/Window")), QStringLiteral("1 minute (added)"));
        auto *generated = child<QPlainTextEdit>(dryRun, "dryRunTable");
        QVERIFY(generated->isHidden());
        click(dryRun, "showPolicyTable");
        QVERIFY(generated->isVisible());
        QVERIFY(generated->toPlainText().contains(QLatin1String("[\"api\"]")));
        QVERIFY(!dryRun->findChild<QPushButton *>(QStringLiteral("confirmButton")));
        dryRun->reject();
        QCOMPARE(test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(), 0);

        // Publish asks first on every connection, with the same review; Cancel loads nothing.
        click(view, "deploymentPublishButton");
        QDialog *review = nullptr;
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        QVERIFY2(child<QLabel>(review, "publishIntro")->text().contains(QLatin1String("loads version 1")),
                 qPrintable(child<QLabel>(review, "publishIntro")->text()));
        QVERIFY(changeRows(review).contains(QStringLiteral("api/Limit")));
        review->reject();
        QVERIFY(test::settle(*window));
        QCOMPARE(test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(), 0);

        // Confirmed: each node shows loading, then its result.
        click(view, "deploymentPublishButton");
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        click(review, "confirmButton");
        QVERIFY(view->deploymentModel()->isPending(0));
        QCOMPARE(view->deploymentModel()->index(0, model::DeploymentModel::State).data().toString(),
                 QStringLiteral("loading\u2026"));
        QTRY_COMPARE(view->deploymentModel()->index(0, model::DeploymentModel::State).data().toString(),
                     QStringLiteral("current"));
        QTRY_VERIFY(
            labelText(view, "deploymentStatus").contains(QLatin1String("Published version 1 to every primary (1)")));
        QCOMPARE(test::syncCommand(observer, {"FUNCTION", "LIST"}).value.elements.size(), 1);
        QTRY_VERIFY(record->text().contains(QLatin1String("Published version 1")));
        QTRY_COMPARE(window->policyPanel()->listModel()->index(0, model::PolicyListModel::Published).data().toString(),
                     QStringLiteral("yes"));
        QTRY_VERIFY(labelText(window->policyPanel(), "publishWarning").isEmpty());
        // Publishing again with nothing changed: the sentence that says so, no empty table below it.
        click(view, "deploymentPublishButton");
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        QVERIFY2(child<QLabel>(review, "publishIntro")->text().contains(QLatin1String("No policy changes")),
                 qPrintable(child<QLabel>(review, "publishIntro")->text()));
        QVERIFY(!review->findChild<QTableWidget *>(QStringLiteral("publishChanges")));
        QVERIFY2(review->height() < 250, qPrintable(QString::number(review->height())));
        review->reject();
        // The states in their colours, each tab in front: "current" green; "yes" in the palette's text.
        auto *tabs = child<QTabWidget>(window.get(), "mainTabs");
        window->resize(1024, 700);
        tabs->setCurrentWidget(view);
        auto *deploymentTable = child<QTableView>(view, "deploymentTable");
        const QColor ok = ui::toneColor(ui::Tone::Ok), warning = ui::toneColor(ui::Tone::Warning);
        QTRY_VERIFY(cellDrawnIn(deploymentTable, 0, model::DeploymentModel::State, ok));
        tabs->setCurrentWidget(window->policyPanel());
        QTableView *policyTable = window->policyPanel()->table();
        const QColor text = policyTable->palette().color(QPalette::Text);
        QTRY_VERIFY(cellDrawnIn(policyTable, 0, model::PolicyListModel::Name, text)); // drawn by now
        QVERIFY(!cellDrawnIn(policyTable, 0, model::PolicyListModel::Published, warning));
        tabs->setCurrentWidget(view);
        // This private server keeps no persistence: said so.
        QVERIFY(labelText(view, "deploymentWarning").contains(QLatin1String("without persistence")));

        // A stored change not yet published: both the list and the deployment view say so.
        QCOMPARE(test::storePolicy(observer, m_namespace, policy(QStringLiteral("api"), 200, 60000, 150)), QString());
        window->session()->libraryWatch()->checkNow();
        window->policyPanel()->refresh();
        QTRY_COMPARE(window->policyPanel()->listModel()->index(0, model::PolicyListModel::Published).data().toString(),
                     QStringLiteral("changed"));
        tabs->setCurrentWidget(window->policyPanel());
        QTRY_VERIFY(cellDrawnIn(policyTable, 0, model::PolicyListModel::Published, warning));
        tabs->setCurrentWidget(view);
        QTRY_VERIFY(labelText(window->policyPanel(), "publishWarning")
                        .contains(QLatin1String("differ from the published library")));
        QTRY_VERIFY(labelText(view, "deploymentWarning").contains(QLatin1String("differ from the published library")));
        click(view, "dryRunButton");
        QTRY_VERIFY((dryRun = openDialog<QDialog>("dryRunDialog")));
        const QHash<QString, QString> changed = changeRows(dryRun, 2);
        QCOMPARE(changed.keys(), QStringList{QStringLiteral("api/Limit")});
        QCOMPARE(changed.value(QStringLiteral("api/Limit")), QStringLiteral("100"));
        QCOMPARE(changeRows(dryRun).value(QStringLiteral("api/Limit")), QStringLiteral("200"));
        dryRun->reject();

        // The data flushed (what a restart without persistence leaves, read by a watch that never saw the
        // connection drop): with the publish record gone nothing reports drift, yet the library is missing,
        // so the last publish's result no longer stands (the footer said "Published version 1 to every
        // primary" over "missing").
        click(view, "deploymentPublishButton");
        QTRY_VERIFY((review = openDialog<QDialog>("publishReview")));
        click(review, "confirmButton");
        QTRY_VERIFY(
            labelText(view, "deploymentStatus").contains(QLatin1String("Published version 2 to every primary (1)")));
        QVERIFY(test::syncCommand(observer, {"FLUSHALL"}).ok());
        QVERIFY(test::syncCommand(observer, {"FUNCTION", "FLUSH"}).ok());
        window->session()->libraryWatch()->checkNow();
        QTRY_COMPARE_WITH_TIMEOUT(view->deploymentModel()->index(0, model::DeploymentModel::State).data().toString(),
                                  QStringLiteral("missing"), 10000);
        QVERIFY2(labelText(view, "deploymentStatus").isEmpty(), qPrintable(labelText(view, "deploymentStatus")));
    }
};

QTEST_MAIN(TestPolicyAdmin)
#include "tst_policy_admin.moc"
