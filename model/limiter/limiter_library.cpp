// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/limiter_library.h"

#include "model/limiter/lua_source.h"
#include "model/policy/namespace_lists.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QRandomGenerator>

#include <algorithm>

namespace sluice::model {

namespace {

bool isPlain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '_'
        || c == '.' || c == ',' || c == ':' || c == '-' || c == '/';
}

} // namespace

QByteArray LimiterLibrary::luaString(const QByteArray &bytes)
{
    QByteArray literal = "\"";
    for (const char c : bytes) {
        if (isPlain(c)) {
            literal += c;
        } else {
            // Always three digits, so a digit that follows cannot extend the escape.
            literal += '\\';
            literal += QByteArray::number(static_cast<unsigned char>(c)).rightJustified(3, '0');
        }
    }
    return literal + '"';
}

QByteArray LimiterLibrary::policyTable(const QVector<Policy> &policies)
{
    QVector<Policy> sorted = policies;
    std::sort(sorted.begin(), sorted.end(), [](const Policy &a, const Policy &b) { return a.name < b.name; });
    QByteArray table = "local POLICIES = {\n";
    for (const Policy &policy : sorted) {
        table += "    [" + luaString(policy.name.toUtf8())
            + "] = {algorithm = " + luaString(algorithmName(policy.algorithm).toUtf8())
            + ", limit = " + QByteArray::number(policy.limit) + ", window_ms = " + QByteArray::number(policy.windowMs)
            + ", burst = " + QByteArray::number(policy.effectiveBurst()) + ", shadow = "
            + (policy.shadow ? "true" : "false")
            // Only when set: the table of a library without it reads as before (no drift).
            + (policy.windowStart == WindowStart::FirstCall ? ", first_call = true" : "")
            + (policy.shadowOf.isEmpty() ? QByteArray() : ", shadow_of = " + luaString(policy.shadowOf.toUtf8()))
            + (policy.overrides.isEmpty() ? QByteArray() : ", overrides = " + luaString(overridesLibraryText(policy)))
            + (policy.blockMs > 0 ? ", block_ms = " + QByteArray::number(policy.blockMs) : QByteArray())
            + (policy.maxDebt > 0 ? ", max_debt = " + QByteArray::number(policy.maxDebt) : QByteArray())
            + (policy.reserveTimeoutMs > 0 ? ", reserve_timeout_ms = " + QByteArray::number(policy.reserveTimeoutMs)
                                           : QByteArray())
            + (policy.spread > 0 ? ", spread = " + QByteArray::number(policy.spread) : QByteArray())
            + (policy.calendar == Calendar::None ? QByteArray()
                                                 : ", calendar = " + luaString(calendarName(policy.calendar).toUtf8())
                       + ", utc_offset_minutes = " + QByteArray::number(policy.utcOffsetMinutes)
                       + ", anchor_day = " + QByteArray::number(policy.anchorDay))
            + ", description = " + luaString(policy.description.toUtf8()) + "},\n";
    }
    return table + "}\n";
}

namespace {

const QByteArray libraryLine = "\nlocal LIBRARY = {";

QByteArray bodyDigest(const QByteArray &body)
{
    return QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex().left(16);
}

} // namespace

std::optional<QByteArray> LimiterLibrary::digestOfSource(const QByteArray &source)
{
    const qsizetype line = source.indexOf(libraryLine);
    const qsizetype body = line < 0 ? -1 : source.indexOf('\n', line + 1);
    if (body < 0)
        return std::nullopt;
    return bodyDigest(source.mid(body + 1));
}

QString LimiterLibrary::tooLarge(qint64 bytes)
{
    return QCoreApplication::translate("sluice::model::LimiterLibrary",
                                       "the library would be %1 MB of code; it may be at most %2 MB (each policy and "
                                       "each override is code on every primary, in Lua memory outside maxmemory): "
                                       "fewer overrides, or move subjects to the namespace's lists")
        .arg(QString::number(double(bytes) / (1024 * 1024), 'f', 1))
        .arg(policy_limits::maxLibraryBytes / (1024 * 1024));
}

LimiterLibrary LimiterLibrary::build(const QVector<Policy> &policies, const QVector<SubjectOverride> &lists,
                                     const LibraryOwner &owner, qint64 version, const QByteArray &clockSource)
{
    const QByteArray table = policyTable(policies) + "local LISTS = " + luaString(listsLibraryText(lists)) + "\n";
    const QByteArray name = owner.libraryName();
    const QByteArray body = "local NAMESPACE = " + luaString(owner.ns.toUtf8())
        + "\nlocal DATABASE = " + QByteArray::number(owner.database) + "\n" + table
        + (clockSource.isEmpty() ? luaSource(QStringLiteral("clock.lua")) : clockSource)
        + luaSource(QStringLiteral("sluice.lua"));

    // 128 bits from the system's generator: lease ids hash it, so no caller can compute another's.
    quint32 secret[4];
    QRandomGenerator::system()->fillRange(secret);
    const QByteArray leaseSecret = QByteArray(reinterpret_cast<const char *>(secret), sizeof secret).toHex();

    LimiterLibrary library;
    library.version = version;
    library.table = table;
    library.digest = bodyDigest(body);
    library.source = "#!lua name=" + name
        + "\n"
          "-- Generated by Sluice from the stored policies. Do not edit: publish again instead."
        + libraryLine + "name = " + luaString(name) + ", version = " + QByteArray::number(version)
        + ", digest = " + luaString(library.digest) + ", code = " + luaString(SLUICE_VERSION)
        + ", lease_secret = " + luaString(leaseSecret) + "}\n" + body;
    return library;
}

} // namespace sluice::model
