// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace sluice::model {

// A subject's bytes as text that can be printed and read back: valid UTF-8 stays as it is, and
// every byte of invalid UTF-8, a control character, a space and '%' itself is written %XX
// (so "10.0.0.1" stays, "\xff" becomes "%FF", "50%" becomes "50%25").
QString subjectText(const QByteArray &subject);
// The bytes back from subjectText()'s text.
QByteArray subjectFromText(const QString &text);

} // namespace sluice::model
