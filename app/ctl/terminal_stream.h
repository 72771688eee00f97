// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIODevice>
#include <QStringDecoder>

class QTextStream;

namespace sluice::app {

// Everything sluicectl prints passes through one of these on its way to stdout or stderr, so no text from
// Redis or a file reaches the operator's terminal as a command to it, whatever printed it: each control
// character (but the line feeds and tabs of the output's own lines) and each bidirectional override is
// written \uXXXX (model/format/terminal_text.h), which keeps --json output the same JSON.
class TerminalStream : public QIODevice {
public:
    explicit TerminalStream(QTextStream &target);

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override;

private:
    QTextStream &m_target;
    QStringDecoder m_decoder{QStringDecoder::Utf8}; // holds a character cut between two writes
};

} // namespace sluice::app
