// SPDX-License-Identifier: GPL-3.0-or-later
// Help, offline: every link in the shipped docs lands on a shipped page and, where it names one, a heading of
// it; F1 opens the section about the tab in front; links, Back and find in page work from the keyboard and
// mouse; and Help > Keyboard shortcuts lists what the window answers, read from the window itself.

#include "ui/help/doc_headings.h"
#include "ui/help/help_window.h"
#include "ui/help/shortcuts_dialog.h"
#include "ui/window/main_window.h"

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>

using namespace sluice;

namespace {

QTextDocument *loadShipped(const QUrl &url, QObject *parent)
{
    QFile file(QLatin1Char(':') + url.path());
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    auto *document = new QTextDocument(parent);
    document->setMarkdown(QString::fromUtf8(file.readAll()));
    return document;
}

// Each link of the document, as written.
QStringList linksOf(const QTextDocument &document)
{
    QStringList links;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto fragment = block.begin(); !fragment.atEnd(); ++fragment)
            if (const QTextCharFormat format = fragment.fragment().charFormat(); format.isAnchor())
                if (!links.contains(format.anchorHref()))
                    links << format.anchorHref();
    return links;
}

// The heading whose top is the first line of the browser's view.
QString headingAtTop(const QTextBrowser &browser)
{
    const QTextBlock block = browser.cursorForPosition(QPoint(4, 4)).block();
    return block.blockFormat().headingLevel() > 0 ? block.text()
                                                  : QStringLiteral("<not a heading: %1>").arg(block.text().left(60));
}

// Clicks the first link with that target, as a user would; where the page was scrolled to when it was
// clicked, or -1 when it has no such link.
int clickLink(QTextBrowser &browser, const QString &href)
{
    const QTextDocument &document = *browser.document();
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto fragment = block.begin(); !fragment.atEnd(); ++fragment) {
            if (fragment.fragment().charFormat().anchorHref() != href)
                continue;
            QTextCursor cursor(browser.document());
            cursor.setPosition(fragment.fragment().position() + 1);
            browser.setTextCursor(cursor);
            browser.ensureCursorVisible();
            const int scrolledTo = browser.verticalScrollBar()->value();
            QTest::mouseClick(browser.viewport(), Qt::LeftButton, {}, browser.cursorRect(cursor).center());
            return scrolledTo;
        }
    return -1;
}

} // namespace

class TestHelp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyLinkOfTheShippedDocsLands()
    {
        const QStringList pages = ui::HelpWindow::pages();
        QCOMPARE(pages.value(0), QStringLiteral("user-guide.md"));
        for (const char *page : {"user-guide.md", "limiter-contract.md", "tuning.md", "monitoring.md", "services.md"})
            QVERIFY2(pages.contains(QLatin1String(page)), page);
        QStringList broken;
        int checked = 0;
        QObject owner;
        for (const QString &page : pages) {
            const QUrl pageUrl = ui::HelpWindow::docsRoot().resolved(QUrl(page));
            const QTextDocument *document = loadShipped(pageUrl, &owner);
            QVERIFY(document);
            for (const QString &href : linksOf(*document)) {
                const QUrl link(href);
                if (link.scheme() == QLatin1String("https") || link.scheme() == QLatin1String("http"))
                    continue;
                ++checked;
                const QUrl target = pageUrl.resolved(link);
                QString path = target.path();
                if (path.endsWith(QLatin1Char('/')))
                    path.chop(1);
                if (!QFileInfo::exists(QLatin1Char(':') + path)) {
                    broken << QStringLiteral("%1: %2 (not shipped)").arg(page, href);
                    continue;
                }
                if (link.fragment().isEmpty())
                    continue;
                const QTextDocument *targetDocument = loadShipped(target, &owner);
                if (!targetDocument || !ui::headingBlock(*targetDocument, link.fragment()).isValid())
                    broken << QStringLiteral("%1: %2 (no such heading)").arg(page, href);
            }
        }
        QVERIFY2(broken.isEmpty(), qPrintable(broken.join(QLatin1Char('\n'))));
        QVERIFY2(checked > 100, qPrintable(QString::number(checked)));
    }

    void headingsAreNamedAsGitHubNamesThem()
    {
        QTextDocument document;
        document.setMarkdown(QStringLiteral("# Keys and reset-key\n\ntext\n\n## Publishing, deployment and drift\n\n"
                                            "## `sluicectl` watch\n\n## Notes\n\n## Notes\n"));
        QCOMPARE(ui::headingAnchors(document),
                 QStringList({QStringLiteral("keys-and-reset-key"), QStringLiteral("publishing-deployment-and-drift"),
                              QStringLiteral("sluicectl-watch"), QStringLiteral("notes"), QStringLiteral("notes-1")}));
        QCOMPARE(ui::headingBlock(document, QStringLiteral("notes-1")).blockNumber(), 5);
        QVERIFY(!ui::headingBlock(document, QStringLiteral("notes-2")).isValid());
    }

    void f1OpensTheSectionAboutTheTabInFront()
    {
        ui::MainWindow window;
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("mainTabs"));
        QVERIFY(tabs);
        const QHash<QString, QString> expected = {
            {QStringLiteral("Key &inspector"), QStringLiteral("Key inspector")},
            {QStringLiteral("&Test fire"), QStringLiteral("Test fire")},
            {QStringLiteral("&Policies"), QStringLiteral("Policies in the dashboard")},
            {QStringLiteral("&Deployment"), QStringLiteral("Publishing from the dashboard")},
            {QStringLiteral("Liv&e"), QStringLiteral("Live monitoring")},
            {QStringLiteral("T&une"), QStringLiteral("Choosing a limit from real traffic")},
        };
        for (int index = 0; index < tabs->count(); ++index) {
            tabs->setCurrentIndex(index);
            window.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&window));
            QTest::keyClick(&window, Qt::Key_F1);
            ui::HelpWindow *help = window.helpWindow();
            QVERIFY(help);
            QTRY_VERIFY(help->isVisible());
            QVERIFY2(help->notice().isEmpty(), qPrintable(help->notice()));
            if (expected.contains(tabs->tabText(index)))
                QTRY_COMPARE(headingAtTop(*help->browser()), expected.value(tabs->tabText(index)));
            else
                QVERIFY(help->browser()->verticalScrollBar()->value() > 0); // a section, not the page's top
        }
    }

    void linksBackAndFindInPage()
    {
        QWidget parent;
        ui::HelpWindow help(&parent);
        help.showPage(QStringLiteral("user-guide.md"));
        QVERIFY(QTest::qWaitForWindowExposed(&help));
        QTextBrowser &browser = *help.browser();
        QCOMPARE(headingAtTop(browser), QStringLiteral("User guide"));
        QVERIFY(help.windowTitle().startsWith(QLatin1String("User guide")));

        QVERIFY(clickLink(browser, QStringLiteral("#test-fire")) >= 0);
        QTRY_COMPARE(headingAtTop(browser), QStringLiteral("Test fire"));
        // The page's last link to the contract, far down it, so Back has a place to come back to.
        const int leftAt = clickLink(browser, QStringLiteral("limiter-contract.md#reserve-then-settle"));
        QVERIFY(leftAt > 1000);
        QTRY_VERIFY(help.windowTitle().startsWith(QLatin1String("The limiter contract")));
        QTRY_COMPARE(headingAtTop(browser), QStringLiteral("Reserve then settle"));
        QCOMPARE(help.findChild<QComboBox *>(QStringLiteral("helpPages"))->currentData().toString(),
                 QStringLiteral("limiter-contract.md"));
        QTest::keyClick(&help, Qt::Key_Left, Qt::AltModifier); // Back
        QTRY_VERIFY(help.windowTitle().startsWith(QLatin1String("User guide")));
        QTRY_COMPARE(browser.verticalScrollBar()->value(), leftAt);

        // A snippet is shown as code, a folder as a list of what it holds.
        help.showPage(QStringLiteral("snippets/limiter.py"));
        QTRY_VERIFY(browser.toPlainText().contains(QLatin1String("def ")));
        help.showPage(QStringLiteral("snippets/"));
        QTRY_VERIFY(browser.toPlainText().contains(QLatin1String("local_limits.js")));
        help.showPage(QStringLiteral("user-guide.md#no-such-section"));
        QVERIFY2(help.notice().contains(QLatin1String("no section")), qPrintable(help.notice()));

        help.showPage(QStringLiteral("user-guide.md"));
        QTest::keyClick(&help, Qt::Key_F, Qt::ControlModifier);
        auto *field = help.findChild<QLineEdit *>(QStringLiteral("helpFind"));
        QTRY_VERIFY(field->hasFocus());
        QTest::keyClicks(field, QStringLiteral("reset-key"));
        QTest::keyClick(field, Qt::Key_Return);
        QCOMPARE(browser.textCursor().selectedText().toLower(), QStringLiteral("reset-key"));
        const int first = browser.textCursor().position();
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY(browser.textCursor().position() > first);
        QTest::keyClick(field, Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(browser.textCursor().position(), first);
        field->clear();
        QTest::keyClicks(field, QStringLiteral("no such words anywhere"));
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY2(help.notice().contains(QLatin1String("is not on this page")), qPrintable(help.notice()));
        QCOMPARE(browser.textCursor().position(), first);
    }

    void shortcutsAreReadFromTheWindow()
    {
        ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("mainTabs"));
        for (const QAction *action : window.findChildren<QAction *>())
            QVERIFY2(action->shortcut().isEmpty() || !action->text().isEmpty(),
                     qPrintable(action->shortcut().toString() + QLatin1String(" has no words for what it does")));
        const QList<ui::Shortcut> shortcuts = ui::windowShortcuts(window, *tabs);
        const auto has = [&shortcuts](const QString &keys, const QString &does, const QString &where) {
            for (const ui::Shortcut &shortcut : shortcuts)
                if (shortcut.keys == keys && shortcut.does.startsWith(does) && shortcut.where == where)
                    return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("Ctrl+Shift+O"), QStringLiteral("Connections"), QStringLiteral("File menu")));
        QVERIFY(has(QStringLiteral("F5"), QStringLiteral("Refresh"), QStringLiteral("View menu")));
        QVERIFY(has(QStringLiteral("F1"), QStringLiteral("User guide"), QStringLiteral("Help menu")));
        QVERIFY(has(QStringLiteral("Ctrl+9"), QStringLiteral("History"), QStringLiteral("View menu")));
        QVERIFY(has(QStringLiteral("Ctrl+0"), QStringLiteral("Tune"), QStringLiteral("View menu"))); // the tenth tab
        QVERIFY(has(QStringLiteral("Alt+Y"), QStringLiteral("Show the By subject tab"), QStringLiteral("Window")));
        QVERIFY(has(QStringLiteral("Alt+U"), QStringLiteral("Show the Tune tab"), QStringLiteral("Window")));
        QVERIFY(has(QStringLiteral("Alt+L"), QStringLiteral("Open the Limiter menu"), QStringLiteral("Window")));
        QVERIFY(
            has(QStringLiteral("Ctrl+W"), QStringLiteral("Watch the selected policy"), QStringLiteral("Overview tab")));
        QVERIFY(
            has(QStringLiteral("Del"), QStringLiteral("Delete the selected policy"), QStringLiteral("Policies tab")));

        window.findChild<QAction *>(QStringLiteral("shortcutsAction"))->trigger();
        auto *table = window.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QVERIFY(table);
        QCOMPARE(table->rowCount(), shortcuts.size());
        QCOMPARE(table->item(0, 0)->text(), shortcuts.first().keys);
    }
};

QTEST_MAIN(TestHelp)
#include "tst_help.moc"
