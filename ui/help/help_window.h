// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTextBrowser;
class QUrl;

namespace sluice::ui {

// The docs shipped inside the program (the same Markdown as docs/, with the screenshots and snippets they
// show), readable offline: a page list, back and forward, find in page, and links to headings that land on
// them. A link outside what is shipped says so rather than opening nothing.
class HelpWindow : public QWidget {
    Q_OBJECT
public:
    explicit HelpWindow(QWidget *parent);

    // Shows a shipped page, "user-guide.md" or "user-guide.md#test-fire", and raises the window.
    void showPage(const QString &pageAndAnchor);

    // The shipped pages, "user-guide.md" first, then by title.
    static QStringList pages();
    // Where the shipped docs are: a page's URL is this plus its name.
    static QUrl docsRoot();

    QTextBrowser *browser() const { return m_text; }
    // What the last link or search said, when it went nowhere ("Not found", "not part of this help").
    QString notice() const;

private:
    void follow(const QUrl &link);
    void scrollToHeading(const QString &anchor);
    void find(bool backward);
    void showNotice(const QString &text);

    QTextBrowser *m_text = nullptr;
    QComboBox *m_pageList = nullptr;
    QLineEdit *m_findField = nullptr;
    QLabel *m_notice = nullptr;
};

} // namespace sluice::ui
