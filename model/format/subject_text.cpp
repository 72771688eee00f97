// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/format/subject_text.h"

#include <QList>

namespace sluice::model {

namespace {

// The length of the valid UTF-8 sequence starting at `at`, or 0.
qsizetype utf8Length(const QByteArray &bytes, qsizetype at)
{
    const auto byte = [&](qsizetype i) { return static_cast<unsigned char>(bytes.at(i)); };
    const unsigned char lead = byte(at);
    const qsizetype length = lead < 0x80 ? 1
        : (lead >> 5) == 0x6             ? 2
        : (lead >> 4) == 0xe             ? 3
        : (lead >> 3) == 0x1e            ? 4
                                         : 0;
    if (length == 0 || at + length > bytes.size())
        return 0;
    for (qsizetype i = 1; i < length; ++i)
        if ((byte(at + i) & 0xc0) != 0x80)
            return 0;
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
    const QString decoded = QString::fromUtf8(bytes.constData() + at, length);
    return decoded.contains(QChar::ReplacementCharacter) ? 0 : length;
}

} // namespace

QString subjectText(const QByteArray &subject)
{
    QString text;
    for (qsizetype at = 0; at < subject.size();) {
        const unsigned char byte = static_cast<unsigned char>(subject.at(at));
        const qsizetype length = utf8Length(subject, at);
        const bool plain = length > 1
            ? QChar::isPrint(QString::fromUtf8(subject.constData() + at, length).toUcs4().value(0))
            : length == 1 && byte > 0x20 && byte < 0x7f && byte != '%';
        if (plain) {
            text += QString::fromUtf8(subject.constData() + at, length);
            at += length;
        } else {
            text += QStringLiteral("%%1").arg(byte, 2, 16, QLatin1Char('0')).toUpper();
            ++at;
        }
    }
    return text;
}

QByteArray subjectFromText(const QString &text)
{
    return QByteArray::fromPercentEncoding(text.toUtf8());
}

} // namespace sluice::model
