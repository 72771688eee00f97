// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/terminal_stream.h"

#include "model/format/terminal_text.h"

#include <QTextStream>

namespace sluice::app {

TerminalStream::TerminalStream(QTextStream &target)
    : m_target(target)
{
    open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

qint64 TerminalStream::writeData(const char *data, qint64 size)
{
    const QString text = m_decoder.decode(QByteArrayView(data, size));
    m_target << model::terminalText(text, true);
    m_target.flush(); // in order with the other stream's lines
    return size;
}

} // namespace sluice::app
