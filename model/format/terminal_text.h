// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

namespace sluice::model {

// Text that came from Redis or a file (a subject a service planted, a description, a server's error) may
// hold characters a terminal obeys rather than shows: C0 and C1 controls (ESC starts the sequences that
// move the cursor, retitle the window or write to the clipboard), DEL, and the bidirectional overrides that
// show text in another order than it is read. Each is written as \uXXXX instead, which is also how JSON may
// write it, so a JSON document passed through stays exactly the same document.

// Whether `c` is one of those characters.
bool isTerminalControl(char32_t c);

// `text` with each of them written as \uXXXX; line feeds and tabs too, unless `keepLines` (for whole
// outputs, whose own lines are meant).
QString terminalText(QStringView text, bool keepLines = false);

} // namespace sluice::model
