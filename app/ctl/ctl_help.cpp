// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_help.h"

#include "app/ctl/ctl_tr.h"

#include <QCoreApplication>

#include <optional>

namespace sluice::app {

namespace {

constexpr int pageWidth = 79;
constexpr int optionColumn = 26;

// `words` joined by spaces into lines of at most `width - indent` characters, each indented by
// `indent`; a word never breaks.
QString wrapped(const QStringList &words, int indent, int width = pageWidth)
{
    QString result, line;
    const QString margin(indent, QLatin1Char(' '));
    for (const QString &word : words) {
        if (!line.isEmpty() && indent + line.size() + 1 + word.size() > width) {
            result += margin + line + QLatin1Char('\n');
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        result += margin + line + QLatin1Char('\n');
    return result;
}

QString wrapped(const QString &text, int indent)
{
    return wrapped(text.split(QLatin1Char(' '), Qt::SkipEmptyParts), indent);
}

QString spelling(const QString &name)
{
    return (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
}

// "  -u, --url <url>      Redis URL: ..." with the description wrapped beside or below the names.
QString optionLines(const QList<QCommandLineOption> &options)
{
    QString text;
    for (const QCommandLineOption &option : options) {
        QStringList spellings;
        for (const QString &name : option.names())
            spellings << spelling(name);
        QString names = QStringLiteral("  ") + spellings.join(QLatin1String(", "));
        if (!option.valueName().isEmpty())
            names += QStringLiteral(" <%1>").arg(option.valueName());
        const QString description = wrapped(option.description(), optionColumn);
        if (names.size() + 2 <= optionColumn)
            text += names.leftJustified(optionColumn) + description.mid(optionColumn);
        else
            text += names + QLatin1Char('\n') + description;
    }
    return text;
}

} // namespace

QString longName(const QCommandLineOption &option)
{
    for (const QString &name : option.names())
        if (name.size() > 1)
            return name;
    return option.names().constFirst();
}

CtlHelp::CtlHelp(QList<QCommandLineOption> general, QList<QCommandLineOption> connection,
                 QList<QCommandLineOption> specific)
    : m_general(std::move(general))
    , m_connection(std::move(connection))
    , m_specific(std::move(specific))
{
}

const QCommandLineOption *CtlHelp::specificOption(const QString &name) const
{
    for (const QCommandLineOption &option : m_specific)
        if (longName(option) == name)
            return &option;
    return nullptr;
}

QList<QCommandLineOption> CtlHelp::optionsOf(const CtlCommand &command) const
{
    QList<QCommandLineOption> options;
    for (const QString &name : command.options) {
        const QCommandLineOption *option = specificOption(name);
        Q_ASSERT_X(option, "CtlHelp", "a command names an option that does not exist");
        if (option)
            options << *option;
    }
    return options;
}

QString CtlHelp::topLevel() const
{
    QString text = Ctl::tr("Usage: sluicectl [options] COMMAND [arguments]\n"
                           "Command-line control for Sluice rate limiters in Redis.\n");
    int nameWidth = 0;
    for (const CtlCommand &command : ctlCommands())
        nameWidth = std::max(nameWidth, static_cast<int>(command.name.size()));
    const int column = 2 + nameWidth + 2;
    std::optional<CommandGroup> group;
    for (const CtlCommand &command : ctlCommands()) {
        if (command.group != group) {
            group = command.group;
            text += QLatin1Char('\n') + groupTitle(command.group) + QStringLiteral(":\n");
        }
        text
            += (QStringLiteral("  ") + command.name).leftJustified(column) + wrapped(command.brief, column).mid(column);
    }
    text += QLatin1Char('\n')
        + wrapped(Ctl::tr("Run 'sluicectl help COMMAND' or 'sluicectl COMMAND --help' for a command's options and "
                          "examples."),
                  0);
    text += QLatin1Char('\n') + Ctl::tr("General options (every command):\n") + optionLines(m_general);
    text += QLatin1Char('\n') + Ctl::tr("Connection options (as redis-cli names them):\n") + optionLines(m_connection);
    text += QLatin1Char('\n') + Ctl::tr("Exit codes:\n")
        + wrapped(
                Ctl::tr(
                    "0 ok, 1 failed, 2 usage error, 3 cannot connect (or a server older than Redis 7), 4 timeout, 5 "
                    "invalid input (a file, an "
                    "unknown policy), 6 conflict (nothing changed), 7 drift (a primary does not run the published "
                    "library), 8 refused (a write on a read-only profile, on a "
                    "production one without --yes, or a "
                    "publish that would serve no policy, drop ones in use or take over another's library), 9 "
                    "outcome unknown (a write was sent and its answer lost: it may have been applied), 10 changes "
                    "pending (apply --dry-run), 11 rejected (acquire), 12 a user reaches more than one namespace (acl "
                    "check)."),
                2);
    return text;
}

QString CtlHelp::commandPage(const CtlCommand &command) const
{
    const QList<QCommandLineOption> options = optionsOf(command);
    QStringList synopsis{QStringLiteral("sluicectl"), command.name};
    if (!command.arguments.isEmpty())
        synopsis << command.arguments;
    for (const QCommandLineOption &option : options)
        synopsis << (option.valueName().isEmpty()
                         ? QStringLiteral("[--%1]").arg(longName(option))
                         : QStringLiteral("[--%1 %2]").arg(longName(option), option.valueName().toUpper()));
    QString text = Ctl::tr("Usage: ") + wrapped(synopsis, 7).mid(7);
    text += QLatin1Char('\n') + wrapped(command.summary, 0);
    if (!options.isEmpty())
        text += QLatin1Char('\n') + Ctl::tr("Options:\n") + optionLines(options);
    if (!command.examples.empty()) {
        text += QLatin1Char('\n') + Ctl::tr("Examples:\n");
        for (const CtlExample &example : command.examples)
            text += QStringLiteral("  sluicectl %1\n").arg(example.commandLine) + wrapped(example.explanation, 6);
    }
    text += QLatin1Char('\n')
        + wrapped(Ctl::tr("Every command also takes the general and connection options (--timeout, --namespace, "
                          "--profile, --yes, --verbose, -u, -h, -p, -a, --tls, ...): see 'sluicectl --help'."),
                  0);
    return text;
}

QStringList CtlHelp::commandNames() const
{
    QStringList names;
    for (const CtlCommand &command : ctlCommands())
        names << command.name;
    return names;
}

QStringList CtlHelp::optionSpellings(const CtlCommand &command) const
{
    QStringList spellings;
    for (const QList<QCommandLineOption> &options : {optionsOf(command), m_general, m_connection})
        for (const QCommandLineOption &option : options)
            for (const QString &name : option.names())
                spellings << spelling(name);
    return spellings;
}

QString CtlHelp::unexpectedOption(const CtlCommand &command, const QStringList &givenNames) const
{
    for (const QString &given : givenNames) {
        for (const QCommandLineOption &option : m_specific) {
            if (option.names().contains(given) && !command.options.contains(longName(option)))
                return given;
        }
    }
    return {};
}

} // namespace sluice::app
