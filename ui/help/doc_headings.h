// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QTextBlock>

class QTextDocument;

namespace sluice::ui {

// The docs link to their headings the way GitHub names them ("#test-fire", "#keys-and-reset-key"), and Qt's
// Markdown reader gives headings no names: these find a heading from such a link.

// The anchor GitHub gives a heading's text: lower case, punctuation dropped, spaces as hyphens.
QString headingAnchor(const QString &headingText);
// Every heading's anchor in document order, a repeated one suffixed "-1", "-2" as GitHub does.
QStringList headingAnchors(const QTextDocument &document);
// The heading block with that anchor, or an invalid block.
QTextBlock headingBlock(const QTextDocument &document, const QString &anchor);

} // namespace sluice::ui
