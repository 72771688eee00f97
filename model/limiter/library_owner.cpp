// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/library_owner.h"

#include "model/connection/key_namespace.h"

#include <QCoreApplication>

namespace sluice::model {

namespace {

const QByteArray defaultLibrary = "sluice";
const QByteArray ownedPrefix = "sluice_";
const QByteArray databaseMark = "_db"; // no namespace spells `_d`, so the mark cannot be part of one

bool isAlphanumeric(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The database suffix's number: digits without a leading zero, from 1 (database 0 has no suffix).
std::optional<int> databaseNumber(const QByteArray &digits)
{
    if (digits.isEmpty() || digits.size() > 5 || digits.at(0) == '0')
        return std::nullopt;
    for (const char c : digits)
        if (c < '0' || c > '9')
            return std::nullopt;
    return digits.toInt();
}

} // namespace

QByteArray LibraryOwner::libraryName() const
{
    if (ns == QLatin1String("sluice") && database == 0)
        return defaultLibrary;
    QByteArray name = ownedPrefix;
    for (const char c : ns.toUtf8()) {
        if (isAlphanumeric(c))
            name += c;
        else if (c == '_')
            name += "__";
        else if (c == '.')
            name += "_p";
        else
            name += "_m"; // '-': the namespace rule allows nothing else
    }
    if (database != 0)
        name += databaseMark + QByteArray::number(database);
    return name;
}

QByteArray LibraryOwner::function(const char *verb) const
{
    return libraryName() + '_' + verb;
}

QString LibraryOwner::describe() const
{
    return QCoreApplication::translate("sluice::model::LibraryOwner", "namespace \"%1\" in database %2")
        .arg(ns)
        .arg(database);
}

std::optional<LibraryOwner> LibraryOwner::fromLibraryName(const QByteArray &name)
{
    if (name == defaultLibrary)
        return LibraryOwner{};
    if (!name.startsWith(ownedPrefix))
        return std::nullopt;
    LibraryOwner owner;
    QByteArray ns;
    const QByteArray spelled = name.mid(ownedPrefix.size());
    for (qsizetype i = 0; i < spelled.size(); ++i) {
        const char c = spelled.at(i);
        if (isAlphanumeric(c)) {
            ns += c;
            continue;
        }
        if (c != '_' || i + 1 == spelled.size())
            return std::nullopt;
        const char escaped = spelled.at(++i);
        if (escaped == '_') {
            ns += '_';
        } else if (escaped == 'p') {
            ns += '.';
        } else if (escaped == 'm') {
            ns += '-';
        } else if (escaped == 'd' && spelled.mid(i - 1, databaseMark.size()) == databaseMark) {
            const std::optional<int> database = databaseNumber(spelled.mid(i + 2));
            if (!database)
                return std::nullopt;
            owner.database = *database;
            break;
        } else {
            return std::nullopt;
        }
    }
    owner.ns = QString::fromLatin1(ns);
    // The name must be the one this owner's library takes (not `sluice_sluice`, nor an empty namespace).
    if (namespaceProblem(owner.ns) || owner.libraryName() != name)
        return std::nullopt;
    return owner;
}

} // namespace sluice::model
