// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/help/help_window.h"

#include "ui/help/doc_headings.h"
#include "ui/widgets/state_palette.h"

#include <QAbstractTextDocumentLayout>
#include <QAction>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

const QString docsDirectory = QStringLiteral(":/help/docs");

QString readShipped(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// A page's title: its first "# " heading, or its file name.
QString pageTitle(const QString &page)
{
    const QString text = readShipped(docsDirectory + QLatin1Char('/') + page);
    const QString firstLine = text.section(QLatin1Char('\n'), 0, 0);
    return firstLine.startsWith(QLatin1String("# ")) ? firstLine.mid(2).trimmed() : page;
}

// The shipped pages with their titles: the user guide first, then by title.
QList<std::pair<QString, QString>> titledPages()
{
    QList<std::pair<QString, QString>> pages;
    for (const QString &name : QDir(docsDirectory).entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name))
        pages.append({pageTitle(name), name});
    const auto guideFirst = [](const auto &page) { return page.second != QLatin1String("user-guide.md"); };
    std::sort(pages.begin(), pages.end(), [&guideFirst](const auto &a, const auto &b) {
        return std::pair(guideFirst(a), a.first) < std::pair(guideFirst(b), b.first);
    });
    return pages;
}

bool isImage(const QString &path)
{
    return path.endsWith(QLatin1String(".png")) || path.endsWith(QLatin1String(".svg"));
}

// Every shipped file is shown as Markdown, so back and forward treat all of them alike: a page as it is, a
// folder as a list of links, an image on its own, and anything else (the snippets) as a code block.
QString asMarkdown(const QString &path)
{
    const QFileInfo info(path);
    if (info.isDir()) {
        QString list = QStringLiteral("# %1\n\n").arg(info.fileName());
        for (const QString &name : QDir(path).entryList(QDir::Files, QDir::Name))
            list += QStringLiteral("- [%1](%2/%1)\n").arg(name, info.fileName());
        return list;
    }
    if (path.endsWith(QLatin1String(".md")))
        return readShipped(path);
    if (isImage(path))
        return QStringLiteral("![%1](%1)\n").arg(info.fileName());
    return QStringLiteral("# %1\n\n````\n%2\n````\n").arg(info.fileName(), readShipped(path));
}

// Shows screenshots no wider than the page, so a 1920 px one does not need sideways scrolling.
class HelpText : public QTextBrowser {
public:
    using QTextBrowser::QTextBrowser;

    QVariant loadResource(int type, const QUrl &name) override
    {
        const QString path = QLatin1Char(':') + (name.isRelative() ? source().resolved(name) : name).path();
        if (type != QTextDocument::ImageResource)
            return asMarkdown(path);
        QImage image(path);
        const int room = std::max(400, viewport()->width() - 40);
        if (image.width() > room)
            image = image.scaledToWidth(room, Qt::SmoothTransformation);
        return image;
    }
};

} // namespace

HelpWindow::HelpWindow(QWidget *parent)
    : QWidget(parent, Qt::Window)
{
    setObjectName(QStringLiteral("helpWindow"));
    setWindowTitle(tr("Sluice help"));
    m_text = new HelpText(this);
    m_text->setObjectName(QStringLiteral("helpText"));
    m_text->setOpenLinks(false);
    connect(m_text, &QTextBrowser::anchorClicked, this, &HelpWindow::follow);

    QList<QToolButton *> buttons;
    auto addButton = [this, &buttons](const QString &text, const QKeySequence &keys) {
        auto *action = new QAction(text, this);
        action->setIconText(text); // the button shows the text with its mnemonic (Alt+B, Alt+F)
        action->setShortcut(keys);
        action->setToolTip(QStringLiteral("%1 (%2)").arg(QString(text).remove(QLatin1Char('&')),
                                                         keys.toString(QKeySequence::NativeText)));
        addAction(action);
        auto *button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        buttons << button;
        return action;
    };
    QAction *back = addButton(tr("&Back"), QKeySequence::Back);
    QAction *forward = addButton(tr("&Forward"), QKeySequence::Forward);
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(back, &QAction::triggered, m_text, &QTextBrowser::backward);
    connect(forward, &QAction::triggered, m_text, &QTextBrowser::forward);
    connect(m_text, &QTextBrowser::backwardAvailable, back, &QAction::setEnabled);
    connect(m_text, &QTextBrowser::forwardAvailable, forward, &QAction::setEnabled);

    m_pageList = new QComboBox(this);
    m_pageList->setObjectName(QStringLiteral("helpPages"));
    m_pageList->setAccessibleName(tr("Page"));
    for (const auto &[title, page] : titledPages())
        m_pageList->addItem(title, page);
    connect(m_pageList, &QComboBox::activated, this,
            [this](int index) { showPage(m_pageList->itemData(index).toString()); });

    m_findField = new QLineEdit(this);
    m_findField->setObjectName(QStringLiteral("helpFind"));
    m_findField->setPlaceholderText(tr("Find in page (Ctrl+F)"));
    m_findField->setAccessibleName(tr("Find in page"));
    m_findField->setClearButtonEnabled(true);
    connect(m_findField, &QLineEdit::returnPressed, this, [this] { find(false); });
    auto *findPrevious = new QAction(m_findField);
    findPrevious->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Return));
    findPrevious->setShortcutContext(Qt::WidgetShortcut);
    connect(findPrevious, &QAction::triggered, this, [this] { find(true); });
    m_findField->addAction(findPrevious);
    auto *focusFind = new QAction(tr("Find in page"), this);
    focusFind->setShortcut(QKeySequence::Find);
    connect(focusFind, &QAction::triggered, this, [this] {
        m_findField->setFocus(Qt::ShortcutFocusReason);
        m_findField->selectAll();
    });
    addAction(focusFind);
    auto *findNext = new QAction(tr("Find next"), this);
    findNext->setShortcut(QKeySequence::FindNext);
    connect(findNext, &QAction::triggered, this, [this] { find(false); });
    addAction(findNext);
    auto *close = new QAction(tr("Close help"), this);
    close->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(close, &QAction::triggered, this, &QWidget::close);
    addAction(close);

    m_notice = new QLabel(this);
    m_notice->setObjectName(QStringLiteral("helpNotice"));
    m_notice->setStyleSheet(textStyle(Tone::Muted));
    m_notice->setWordWrap(true);

    auto *bar = new QHBoxLayout;
    for (QToolButton *button : std::as_const(buttons))
        bar->addWidget(button);
    bar->addWidget(m_pageList, 1);
    bar->addWidget(m_findField, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_notice);
    setTabOrder(m_pageList, m_findField);
    setTabOrder(m_findField, m_text);

    connect(m_text, &QTextBrowser::sourceChanged, this, [this](const QUrl &source) {
        const QString name = QFileInfo(source.path()).fileName();
        const int index = m_pageList->findData(name);
        if (index >= 0)
            m_pageList->setCurrentIndex(index);
        setWindowTitle(tr("%1 \u2013 Sluice help").arg(index >= 0 ? m_pageList->itemText(index) : name));
    });
    resize(900, 640);
}

QStringList HelpWindow::pages()
{
    QStringList names;
    for (const auto &[title, name] : titledPages())
        names << name;
    return names;
}

QUrl HelpWindow::docsRoot()
{
    return QUrl(QStringLiteral("qrc:/help/docs/"));
}

QString HelpWindow::notice() const
{
    return m_notice->text();
}

void HelpWindow::showPage(const QString &pageAndAnchor)
{
    show(); // first, so the page is laid out at the window's width before it scrolls to the section
    raise();
    activateWindow();
    follow(docsRoot().resolved(QUrl(pageAndAnchor)));
}

void HelpWindow::follow(const QUrl &link)
{
    showNotice({});
    const QString scheme = link.scheme();
    if (scheme == QLatin1String("http") || scheme == QLatin1String("https") || scheme == QLatin1String("mailto")) {
        QDesktopServices::openUrl(link);
        showNotice(tr("Opened in your web browser: %1").arg(link.toString()));
        return;
    }
    QUrl target = m_text->source().isEmpty() ? link : m_text->source().resolved(link);
    if (QString path = target.path(); path.size() > 1 && path.endsWith(QLatin1Char('/'))) {
        path.chop(1);
        target.setPath(path);
    }
    if (target.scheme() != QLatin1String("qrc") || !QFileInfo::exists(QLatin1Char(':') + target.path())) {
        showNotice(tr("\u201c%1\u201d is in Sluice's source tree, not in this help.")
                       .arg(link.toString(QUrl::RemoveFragment)));
        return;
    }
    m_text->setSource(target, QTextDocument::MarkdownResource);
    scrollToHeading(target.fragment());
}

void HelpWindow::scrollToHeading(const QString &anchor)
{
    if (anchor.isEmpty())
        return;
    const QTextBlock block = headingBlock(*m_text->document(), anchor);
    if (!block.isValid()) {
        showNotice(tr("This page has no section \u201c%1\u201d.").arg(anchor));
        return;
    }
    m_text->setTextCursor(QTextCursor(block));
    const QRectF place = m_text->document()->documentLayout()->blockBoundingRect(block);
    m_text->verticalScrollBar()->setValue(qRound(place.top()));
}

// From the cursor on, wrapping once round the page.
void HelpWindow::find(bool backward)
{
    const QString text = m_findField->text();
    if (text.isEmpty())
        return;
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    if (m_text->find(text, flags)) {
        showNotice({});
        return;
    }
    QTextCursor restart(m_text->document());
    restart.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    const QTextCursor before = m_text->textCursor();
    m_text->setTextCursor(restart);
    if (m_text->find(text, flags)) {
        showNotice(backward ? tr("Continued from the end of the page.") : tr("Continued from the top of the page."));
        return;
    }
    m_text->setTextCursor(before);
    showNotice(tr("\u201c%1\u201d is not on this page.").arg(text));
}

void HelpWindow::showNotice(const QString &text)
{
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

} // namespace sluice::ui
