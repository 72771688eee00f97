// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/help/doc_headings.h"

#include <QHash>
#include <QTextDocument>

namespace sluice::ui {

namespace {

// Calls visit(block, anchor) for each heading until it returns true.
template <typename Visit> void forEachHeading(const QTextDocument &document, Visit visit)
{
    QHash<QString, int> seen;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0)
            continue;
        QString anchor = headingAnchor(block.text());
        if (const int repeats = seen[anchor]++; repeats > 0)
            anchor += QLatin1Char('-') + QString::number(repeats);
        if (visit(block, anchor))
            return;
    }
}

} // namespace

QString headingAnchor(const QString &headingText)
{
    QString anchor;
    for (const QChar c : headingText.trimmed().toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            anchor += c;
        else if (c.isSpace())
            anchor += QLatin1Char('-');
    }
    return anchor;
}

QStringList headingAnchors(const QTextDocument &document)
{
    QStringList anchors;
    forEachHeading(document, [&anchors](const QTextBlock &, const QString &anchor) {
        anchors << anchor;
        return false;
    });
    return anchors;
}

QTextBlock headingBlock(const QTextDocument &document, const QString &anchor)
{
    QTextBlock found;
    forEachHeading(document, [&](const QTextBlock &block, const QString &candidate) {
        if (candidate != anchor)
            return false;
        found = block;
        return true;
    });
    return found;
}

} // namespace sluice::ui
