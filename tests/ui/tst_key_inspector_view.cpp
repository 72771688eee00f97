// SPDX-License-Identifier: GPL-3.0-or-later
// The key inspector tab, offscreen, on a real redis-server: it browses when first shown, loads
// further pages as the table scrolls to the end, filters by policy and subject pattern (a bad
// pattern is shown and changes nothing), resets a bucket only after confirmation (audited, shown
// in History), refuses on a read-only connection, and hands a bucket to the watch list. The By subject tab shows
// one subject under every policy, live, with what the library would decide for a call now.

#include "model/connection/connection_session.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy_store.h"
#include "model/tables/audit_model.h"
#include "model/tables/key_inspector_model.h"
#include "support/limiter_support.h"
#include "support/publish_support.h"
#include "support/redis_process.h"
#include "support/sync_command.h"
#include "support/test_services.h"
#include "support/traffic_support.h"
#include "support/widget_driving.h"
#include "support/window_support.h"
#include "ui/monitor/key_inspector_view.h"
#include "ui/monitor/key_watch_view.h"
#include "ui/monitor/subject_view.h"
#include "ui/window/main_window.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QScrollBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTime>

using namespace sluice;
using model::Algorithm;
using model::KeyInspectorModel;

class TestKeyInspectorView : public QObject {
    Q_OBJECT

    test::RedisProcess m_server;
    std::unique_ptr<redis::RedisClient> m_traffic;
    QString m_namespace;

    std::unique_ptr<ui::MainWindow> openWindow(bool readOnly = false)
    {
        model::ConnectionProfile profile;
        profile.name = QStringLiteral("inspect");
        profile.options = m_server.options();
        profile.ns = m_namespace;
        profile.readOnly = readOnly;
        return test::openMainWindow(profile);
    }

    static ui::KeyInspectorView *showInspector(ui::MainWindow *window)
    {
        test::child<QTabWidget>(window, "mainTabs")->setCurrentWidget(window->keyInspector());
        return window->keyInspector();
    }

    static bool loaded(ui::KeyInspectorView *view)
    {
        return QTest::qWaitFor([&] { return view->model()->scanner().isStarted() && !view->model()->isLoading(); },
                               10000);
    }

    // Types a subject pattern and scans, as an operator looking for one subject would.
    static bool find(ui::KeyInspectorView *view, const QString &pattern)
    {
        test::typeInto(view, "inspectPattern", pattern);
        test::click(view, "inspectScan");
        return loaded(view);
    }

    static int rowOf(ui::KeyInspectorView *view, const QByteArray &subject)
    {
        for (int row = 0; row < view->model()->rowCount(); ++row)
            if (view->model()->bucket(row).bucket.subject == subject)
                return row;
        return -1;
    }

    // The By subject tab's text in `column` of `policy`'s row; empty when no row is the policy's.
    static QString subjectCell(ui::SubjectView *view, const QString &policy, int column)
    {
        QTableWidget *table = view->table();
        for (int row = 0; row < table->rowCount(); ++row)
            if (table->item(row, ui::SubjectView::PolicyColumn)->data(Qt::UserRole).toString() == policy)
                return table->item(row, column)->text();
        return {};
    }

    // The library's own counters for `policy` (sluice_stats' totals): allowed, rejected.
    std::pair<qint64, qint64> policyTotals(const QString &policy)
    {
        const model::LibraryOwner owner{m_namespace, 0};
        const redis::RedisReply reply = test::syncCommand(*m_traffic, {"FCALL_RO", owner.function("stats"), "0"});
        const QVector<redis::RespValue> &items = reply.value.elements;
        for (int i = 2; i + 2 < items.size(); i += 4)
            if (items[i].toString() == policy)
                return {items[i + 1].integer, items[i + 2].integer};
        return {-1, -1};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_traffic = std::make_unique<redis::RedisClient>(m_server.options());
        QVERIFY(test::openAndWait(*m_traffic));
    }

    void init()
    {
        m_namespace = test::uniqueNamespace("view-");
        const QString error
            = test::storeAndPublish(*m_traffic, m_namespace,
                                    {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5),
                                     test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000)});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), 2000,
                           [](int i) { return "user-" + QByteArray::number(i); });
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("login"), 5,
                           [](int) { return QByteArray("mallory"); });
    }

    void browsesWhenShownAndLoadsMoreAsTheTableScrolls()
    {
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(loaded(view));
        const int firstPage = view->model()->rowCount();
        QVERIFY2(firstPage >= KeyInspectorModel::kPageSize && firstPage < 2001, qPrintable(QString::number(firstPage)));
        QVERIFY2(view->statusText().contains(QLatin1String("scroll down for more")), qPrintable(view->statusText()));

        // Scrolling to the end is what asks for the next page.
        QScrollBar *scroll = view->table()->verticalScrollBar();
        for (int i = 0; i < 100 && view->model()->canFetchMore({}); ++i) {
            scroll->setValue(scroll->maximum());
            QVERIFY(loaded(view));
        }
        QCOMPARE(view->model()->rowCount(), 2001);
        QVERIFY2(view->statusText().contains(QLatin1String("All 2,001 matching buckets shown")),
                 qPrintable(view->statusText()));
        const int row = rowOf(view, "user-7");
        QCOMPARE(view->model()->index(row, KeyInspectorModel::Available).data().toString(), QStringLiteral("4 of 5"));

        // At 1,024 pixels a subject such as "merchant-01" is shown whole, not as "me…01".
        window->resize(1024, 700);
        const int needed = view->table()->fontMetrics().horizontalAdvance(QStringLiteral("merchant-01"))
            + 2 * (view->table()->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view->table()) + 1);
        QTRY_VERIFY2(view->table()->columnWidth(KeyInspectorModel::Subject) >= needed,
                     qPrintable(QStringLiteral("%1 px for %2")
                                    .arg(view->table()->columnWidth(KeyInspectorModel::Subject))
                                    .arg(needed)));
    }

    void filtersAndRefusesABadPattern()
    {
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(loaded(view));
        auto *policy = test::child<QComboBox>(view, "inspectPolicy");
        QTRY_VERIFY(policy->findText(QStringLiteral("login")) > 0); // names come with the rate samples
        policy->setCurrentIndex(policy->findText(QStringLiteral("api")));
        test::typeInto(view, "inspectPattern", QStringLiteral("user-19*"));
        test::click(view, "inspectScan");
        QVERIFY(loaded(view));
        QCOMPARE(view->model()->rowCount(), 111); // user-19, user-190..199, user-1900..1999
        QVERIFY(view->statusText().contains(QLatin1String("All 111 matching")));

        test::typeInto(view, "inspectPattern", QStringLiteral("user{1}"));
        QTest::keyClick(test::child<QLineEdit>(view, "inspectPattern"), Qt::Key_Return);
        QVERIFY2(view->errorText().contains(QLatin1String("no { or }")), qPrintable(view->errorText()));
        QCOMPARE(view->model()->rowCount(), 0); // none of the old rows would be the refused pattern's
        QVERIFY(!view->model()->canFetchMore({}));

        policy->setCurrentIndex(policy->findText(QStringLiteral("login")));
        test::typeInto(view, "inspectPattern", QString());
        test::click(view, "inspectScan");
        QVERIFY(loaded(view));
        QVERIFY(view->errorText().isEmpty());
        QCOMPARE(view->model()->rowCount(), 1);
        QCOMPARE(view->model()->index(0, KeyInspectorModel::Rejected).data().toString(), QStringLiteral("2"));
    }

    // What a row shows was read once: its waits count down from the read, and Refresh (F5) scans again, so a
    // bucket created since appears.
    void aSnapshotCountsDownAndRefreshScansAgain()
    {
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(loaded(view));
        QVERIFY(find(view, QStringLiteral("user-7")));
        QCOMPARE(view->model()->rowCount(), 1);
        const QModelIndex expires = view->model()->index(0, KeyInspectorModel::ExpiresIn);
        const QString readAt = view->model()->index(0, KeyInspectorModel::ReadAt).data().toString();
        const QString first = expires.data().toString();
        QTRY_VERIFY_WITH_TIMEOUT(expires.data().toString() != first, 3000);
        QCOMPARE(view->model()->index(0, KeyInspectorModel::ReadAt).data().toString(), readAt); // not read again
        QCOMPARE(view->model()->bucket(0).state->ttlMs, expires.data(KeyInspectorModel::SortRole).toLongLong());

        QVERIFY(find(view, QStringLiteral("newcomer*")));
        QCOMPARE(view->model()->rowCount(), 0);
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), 1,
                           [](int) { return QByteArray("newcomer"); });
        view->refreshAction()->trigger();
        QTRY_COMPARE(view->model()->rowCount(), 1);
        QCOMPARE(view->model()->bucket(0).bucket.subject, QByteArray("newcomer"));
    }

    // Every column sorts when its heading is clicked (numbers as numbers), each row says when it was
    // read, and Refresh reads every row shown again.
    void sortsByEveryColumnAndRefreshes()
    {
        for (const auto &[subject, calls] : {std::pair{"user-12", 3}, std::pair{"user-15", 1}})
            test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), calls,
                               [subject = subject](int) { return QByteArray(subject); });
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(find(view, QStringLiteral("user-1?")));
        QCOMPARE(view->model()->rowCount(), 10);
        const QAbstractItemModel *shown = view->table()->model();
        QHeaderView *header = view->table()->horizontalHeader();
        for (int column = 0; column < KeyInspectorModel::ColumnCount; ++column) {
            if (view->table()->isColumnHidden(column))
                continue;
            for (int click = 0; click < 2; ++click) {
                QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                                  QPoint(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                                         header->height() / 2));
                QCOMPARE(header->sortIndicatorSection(), column);
                const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
                for (int row = 1; row < shown->rowCount(); ++row) {
                    const QVariant before = shown->index(row - 1, column).data(KeyInspectorModel::SortRole);
                    const QVariant after = shown->index(row, column).data(KeyInspectorModel::SortRole);
                    const bool inOrder
                        = ascending ? QVariant::compare(before, after) <= 0 : QVariant::compare(before, after) >= 0;
                    QVERIFY2(inOrder,
                             qPrintable(QStringLiteral("column %1, rows %2 and %3: %4 then %5")
                                            .arg(column)
                                            .arg(row - 1)
                                            .arg(row)
                                            .arg(before.toString(), after.toString())));
                }
            }
        }
        // Available sorts as a number: the fullest bucket (4 of 5) after the emptiest (1 of 5).
        view->table()->sortByColumn(KeyInspectorModel::Available, Qt::AscendingOrder);
        QCOMPARE(shown->index(0, KeyInspectorModel::Subject).data().toString(), QStringLiteral("user-12"));
        QCOMPARE(shown->index(0, KeyInspectorModel::Available).data().toString(), QStringLiteral("1 of 5"));

        // Each row says when it was read; Refresh reads them again and shows what changed since.
        const QString readAt = shown->index(0, KeyInspectorModel::ReadAt).data().toString();
        QVERIFY2(QTime::fromString(readAt, QStringLiteral("HH:mm:ss")).isValid(), qPrintable(readAt));
        QVERIFY(shown->index(0, KeyInspectorModel::FullIn).data(Qt::ToolTipRole).toString().contains(readAt));
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), 1,
                           [](int) { return QByteArray("user-12"); });
        QTest::qWait(1100); // a read time one second later
        test::click(view, "refreshButton");
        QTRY_COMPARE(view->model()->index(rowOf(view, "user-12"), KeyInspectorModel::Available).data().toString(),
                     QStringLiteral("0 of 5"));
        QVERIFY(view->model()->index(rowOf(view, "user-12"), KeyInspectorModel::ReadAt).data().toString() != readAt);
    }

    void aResetIsConfirmedAuditedAndShownInHistory()
    {
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(find(view, QStringLiteral("mall*")));
        const QByteArray key = model::bucketKey(m_namespace, QStringLiteral("login"), "mallory");
        const int row = rowOf(view, "mallory");
        QVERIFY(row >= 0);
        view->table()->selectRow(row);

        // Cancel changes nothing.
        test::click(view, "inspectReset");
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = test::openDialog<QMessageBox>("writeConfirmation")));
        QVERIFY(confirm->text().contains(QLatin1String("mallory")));
        confirm->button(QMessageBox::Cancel)->click();
        QVERIFY(test::settle(*window));
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", key}).value.integer, 1);

        test::click(view, "inspectReset");
        QTRY_VERIFY((confirm = test::openDialog<QMessageBox>("writeConfirmation")));
        confirm->button(QMessageBox::Yes)->click();
        QTRY_VERIFY(view->statusText().contains(QLatin1String("was reset")));
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", key}).value.integer, 0);
        QTRY_COMPARE(view->model()->index(row, KeyInspectorModel::Available).data().toString(),
                     QStringLiteral("3 of 3"));

        // The History tab reads the audit log again and shows the reset.
        auto *history = window->findChild<QTableView *>(QStringLiteral("historyTable"));
        QVERIFY(history);
        QTRY_VERIFY(history->model()->rowCount() > 0
                    && history->model()->index(0, model::AuditModel::Action).data().toString()
                        == QLatin1String("reset"));
        QVERIFY(
            history->model()->index(0, model::AuditModel::Change).data().toString().contains(QLatin1String("mallory")));
    }

    void aReadOnlyConnectionCannotReset()
    {
        auto window = openWindow(true);
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(loaded(view));
        view->table()->selectRow(0);
        auto *reset = test::child<QPushButton>(view, "inspectReset");
        QVERIFY(!reset->isEnabled());
        QVERIFY(reset->toolTip().contains(QLatin1String("read-only")));
        QVERIFY(test::child<QPushButton>(view, "inspectWatch")->isEnabled());

        // By subject: reading yes, resetting no.
        ui::SubjectView *subject = window->subjectView();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(subject);
        QTRY_COMPARE_WITH_TIMEOUT(subject->table()->rowCount(), 2, 10000);
        QVERIFY(subject->showSubject("mallory"));
        QTRY_VERIFY(subject->statusText().startsWith(QLatin1String("Read at")));
        subject->table()->selectRow(0);
        for (const char *name : {"subjectReset", "subjectResetAll"}) {
            auto *button = test::child<QPushButton>(subject, name);
            QVERIFY2(!button->isEnabled(), name);
            QVERIFY(button->toolTip().contains(QLatin1String("read-only")));
        }
        QVERIFY(test::child<QPushButton>(subject, "subjectWatch")->isEnabled());
    }

    void aBucketGoesToTheWatchList()
    {
        auto window = openWindow();
        ui::KeyInspectorView *view = showInspector(window.get());
        QVERIFY(find(view, QStringLiteral("mallory")));
        view->table()->selectRow(rowOf(view, "mallory"));
        test::click(view, "inspectWatch");
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), window->keyWatchView());
        auto *watched = test::child<QTableWidget>(window->keyWatchView(), "watchTable");
        QCOMPARE(watched->rowCount(), 1);
        QVERIFY(watched->item(0, 0)->text().contains(QStringLiteral("login \u00b7 mallory")));
    }

    // One subject under every policy, reached from the key inspector: each bucket as the library reads it and
    // what a call would get now (the library's own answer), live without a press, consuming and counting nothing.
    void oneSubjectUnderEveryPolicyIsLiveAndChangesNothing()
    {
        auto window = openWindow();
        ui::KeyInspectorView *inspector = showInspector(window.get());
        QVERIFY(find(inspector, QStringLiteral("mallory")));
        inspector->table()->selectRow(rowOf(inspector, "mallory"));
        test::click(inspector, "inspectShowSubject");
        ui::SubjectView *view = window->subjectView();
        QCOMPARE(test::child<QTabWidget>(window.get(), "mainTabs")->currentWidget(), view);
        QCOMPARE(test::child<QLineEdit>(view, "subjectEdit")->text(), QStringLiteral("mallory"));

        using V = ui::SubjectView;
        const QString login = QStringLiteral("login");
        const QString api = QStringLiteral("api");
        QTRY_VERIFY_WITH_TIMEOUT(
            subjectCell(view, login, V::DecisionColumn).startsWith(QLatin1String("rejected: wait")), 10000);
        QCOMPARE(view->table()->rowCount(), 2);
        QCOMPARE(subjectCell(view, login, V::AvailableColumn), QStringLiteral("0 of 3"));
        QCOMPARE(subjectCell(view, login, V::AllowedColumn), QStringLiteral("3"));
        QCOMPARE(subjectCell(view, login, V::RejectedColumn), QStringLiteral("2"));
        QCOMPARE(subjectCell(view, api, V::DecisionColumn), QStringLiteral("admitted (5 left)"));
        QCOMPARE(subjectCell(view, api, V::FullInColumn), QStringLiteral("full"));
        QVERIFY2(view->statusText().startsWith(QLatin1String("Read at")), qPrintable(view->statusText()));
        // The library agrees: a peek of its own refuses mallory's next login.
        const model::LibraryOwner owner{m_namespace, 0};
        const QByteArray loginKey = model::bucketKey(m_namespace, login, "mallory");
        const redis::RedisReply peeked
            = test::syncCommand(*m_traffic, {"FCALL_RO", owner.function("peek"), "1", loginKey, "login"});
        QCOMPARE(peeked.value.elements.value(0).integer, 0);

        // Live: a call made elsewhere shows without a press.
        test::fireAcquires(*m_traffic, m_namespace, api, 1, [](int) { return QByteArray("mallory"); });
        QTRY_COMPARE_WITH_TIMEOUT(subjectCell(view, api, V::DecisionColumn), QStringLiteral("admitted (4 left)"), 3000);
        QCOMPARE(subjectCell(view, api, V::AvailableColumn), QStringLiteral("4 of 5"));

        // Reading is not calling: three more rounds change no bucket's counters and no policy's totals.
        const auto loginTotals = policyTotals(login);
        const auto apiTotals = policyTotals(api);
        const int rounds = view->reader()->rounds();
        QTRY_VERIFY_WITH_TIMEOUT(view->reader()->rounds() >= rounds + 3, 10000);
        QCOMPARE(policyTotals(login), loginTotals);
        QCOMPARE(policyTotals(api), apiTotals);
        QCOMPARE(subjectCell(view, login, V::AllowedColumn), QStringLiteral("3"));
        QCOMPARE(subjectCell(view, login, V::RejectedColumn), QStringLiteral("2"));

        // A refused subject is said, and no row keeps the figures of the one before.
        test::typeInto(view, "subjectEdit", QStringLiteral("mal{lory}"));
        QTest::keyClick(test::child<QLineEdit>(view, "subjectEdit"), Qt::Key_Return);
        QVERIFY2(view->errorText().contains(QLatin1String("brace")), qPrintable(view->errorText()));
        QCOMPARE(subjectCell(view, login, V::AvailableColumn), QString());
        QCOMPARE(subjectCell(view, login, V::DecisionColumn), QString());
        QTest::qWait(1500);
        QCOMPARE(subjectCell(view, login, V::AvailableColumn), QString());
    }

    // A shadow policy is marked, and says what it would do to a call it lets through.
    void aShadowPolicySaysWhatItWouldDo()
    {
        model::Policy next = test::makePolicy(QStringLiteral("login-next"), Algorithm::FixedWindow, 1, 3600000);
        next.shadow = true;
        const QString error = test::storeAndPublish(
            *m_traffic, m_namespace,
            {test::makePolicy(QStringLiteral("api"), Algorithm::TokenBucket, 1, 3600000, 5),
             test::makePolicy(QStringLiteral("login"), Algorithm::FixedWindow, 3, 3600000), next});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        test::fireAcquires(*m_traffic, m_namespace, next.name, 2, [](int) { return QByteArray("mallory"); });
        auto window = openWindow();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(window->subjectView());
        ui::SubjectView *view = window->subjectView();
        QTRY_COMPARE_WITH_TIMEOUT(view->table()->rowCount(), 3, 10000);
        QVERIFY(view->showSubject("mallory"));
        QTRY_COMPARE_WITH_TIMEOUT(subjectCell(view, next.name, ui::SubjectView::DecisionColumn),
                                  QStringLiteral("would reject (shadow)"), 10000);
        QTRY_COMPARE(subjectCell(view, next.name, ui::SubjectView::PolicyColumn),
                     QStringLiteral("login-next [shadow]"));
        QCOMPARE(subjectCell(view, QStringLiteral("login"), ui::SubjectView::PolicyColumn), QStringLiteral("login"));

        // A subject that is not plain text (a space, a byte that is no UTF-8, markup) is shown in its printable
        // form, and the form typed back names the same bytes.
        const QByteArray odd("<b>odd</b> \xff");
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), 1, [&odd](int) { return odd; });
        QVERIFY(view->showSubject(odd));
        auto *field = test::child<QLineEdit>(view, "subjectEdit");
        QCOMPARE(field->text(), QStringLiteral("<b>odd</b>%20%FF"));
        QTest::keyClick(field, Qt::Key_Return);
        QCOMPARE(view->reader()->subject(), odd);
        QTRY_COMPARE_WITH_TIMEOUT(subjectCell(view, QStringLiteral("api"), ui::SubjectView::AvailableColumn),
                                  QStringLiteral("4 of 5"), 5000);
        auto *heading = test::child<QLabel>(view, "subjectHeading");
        QVERIFY2(heading->text().contains(QLatin1String("<b>odd</b>%20%FF")), qPrintable(heading->text()));
        QCOMPARE(heading->textFormat(), Qt::PlainText); // the markup is shown, not obeyed
    }

    // One bucket, or every bucket the subject has, reset after confirmation and audited; Cancel changes nothing.
    void theSubjectsBucketsAreResetOneOrAll()
    {
        test::fireAcquires(*m_traffic, m_namespace, QStringLiteral("api"), 2,
                           [](int) { return QByteArray("mallory"); });
        auto window = openWindow();
        test::child<QTabWidget>(window.get(), "mainTabs")->setCurrentWidget(window->subjectView());
        ui::SubjectView *view = window->subjectView();
        QTRY_COMPARE_WITH_TIMEOUT(view->table()->rowCount(), 2, 10000);
        QVERIFY(view->showSubject("mallory"));
        QTRY_COMPARE_WITH_TIMEOUT(subjectCell(view, QStringLiteral("api"), ui::SubjectView::AvailableColumn),
                                  QStringLiteral("3 of 5"), 10000);
        const QByteArray apiKey = model::bucketKey(m_namespace, QStringLiteral("api"), "mallory");
        const QByteArray loginKey = model::bucketKey(m_namespace, QStringLiteral("login"), "mallory");

        // One: the selected policy's bucket only.
        view->table()->selectRow(0); // api: the rows are in name order
        test::click(view, "subjectReset");
        QMessageBox *confirm = nullptr;
        QTRY_VERIFY((confirm = test::openDialog<QMessageBox>("writeConfirmation")));
        QVERIFY2(confirm->text().contains(QStringLiteral("\u201capi\u201d")), qPrintable(confirm->text()));
        confirm->button(QMessageBox::Cancel)->click();
        QVERIFY(test::settle(*window));
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", apiKey}).value.integer, 1);
        test::click(view, "subjectReset");
        QTRY_VERIFY((confirm = test::openDialog<QMessageBox>("writeConfirmation")));
        confirm->button(QMessageBox::Yes)->click();
        QTRY_VERIFY2(view->statusText().contains(QLatin1String("1 bucket(s) reset")), qPrintable(view->statusText()));
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", apiKey}).value.integer, 0);
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", loginKey}).value.integer, 1);
        QTRY_COMPARE(subjectCell(view, QStringLiteral("api"), ui::SubjectView::AvailableColumn),
                     QStringLiteral("5 of 5"));

        // All: every bucket that has a key (login's; api's is gone, so full, and is left out of the audit log).
        test::click(view, "subjectResetAll");
        QTRY_VERIFY((confirm = test::openDialog<QMessageBox>("writeConfirmation")));
        QVERIFY2(confirm->text().contains(QLatin1String("(login)")), qPrintable(confirm->text()));
        confirm->button(QMessageBox::Yes)->click();
        QTRY_VERIFY2(view->statusText().contains(QLatin1String("1 bucket(s) reset")), qPrintable(view->statusText()));
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", apiKey}).value.integer, 0);
        QCOMPARE(test::syncCommand(*m_traffic, {"EXISTS", loginKey}).value.integer, 0);
        const redis::RedisReply audit
            = test::syncCommand(*m_traffic, {"XRANGE", model::AdminKeys(m_namespace).audit(), "-", "+"});
        int resets = 0;
        for (const redis::RespValue &entry : audit.value.elements)
            resets += entry.elements.value(1).field("action")
                && entry.elements.value(1).field("action")->toString() == QLatin1String("reset");
        QCOMPARE(resets, 2);
    }
};

QTEST_MAIN(TestKeyInspectorView)
#include "tst_key_inspector_view.moc"
