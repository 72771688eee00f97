// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_commands.h"

#include <QCommandLineOption>
#include <QList>
#include <QStringList>

namespace sluice::app {

// sluicectl's help, written from the command catalogue and the options themselves: the top-level
// page (commands by group, the general and connection options, exit codes), one command's page
// (synopsis, what it does, its options, examples), and the names shell completion reads. The
// manual page is made from the same pages, so none of them can drift from what the parser takes.
class CtlHelp {
public:
    // `general` options and the connection flags are taken by every command; `specific` ones only
    // by the commands that name them.
    CtlHelp(QList<QCommandLineOption> general, QList<QCommandLineOption> connection,
            QList<QCommandLineOption> specific);

    QString topLevel() const;
    QString commandPage(const CtlCommand &command) const;
    QStringList commandNames() const;
    // Every spelling the command takes ("-u", "--url", "--dry-run"), the general ones included.
    QStringList optionSpellings(const CtlCommand &command) const;
    // The first of the command line's option names (as QCommandLineParser::optionNames() gives
    // them) that the command does not take, or an empty string.
    QString unexpectedOption(const CtlCommand &command, const QStringList &givenNames) const;

private:
    const QCommandLineOption *specificOption(const QString &longName) const;
    QList<QCommandLineOption> optionsOf(const CtlCommand &command) const;

    QList<QCommandLineOption> m_general, m_connection, m_specific;
};

// The option's name as its users know it: its long name, or its one letter when it has no other.
QString longName(const QCommandLineOption &option);

} // namespace sluice::app
