// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/format/terminal_text.h"

namespace sluice::model {

bool isTerminalControl(char32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

QString terminalText(QStringView text, bool keepLines)
{
    QString shown;
    shown.reserve(text.size());
    for (const QChar c : text) {
        const char16_t code = c.unicode();
        if (isTerminalControl(code) && !(keepLines && (code == u'\n' || code == u'\t')))
            shown += QStringLiteral("\\u%1").arg(int(code), 4, 16, QLatin1Char('0'));
        else
            shown += c;
    }
    return shown;
}

} // namespace sluice::model
