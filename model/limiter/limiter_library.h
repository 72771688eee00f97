// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/library_owner.h"
#include "model/policy/policy.h"

#include <QByteArray>
#include <QVector>

#include <optional>

namespace sluice::model {

// One owner's Functions library as it is loaded into Redis: the static limiter code from lua/ behind
// a generated header holding the policies. Policy data enters the source only as escaped literals, so
// no name or description can become Lua code.
struct LimiterLibrary {
    qint64 version = 0; // publish generation; bumped when the digest changes
    QByteArray digest;  // identifies the policies and code the library runs (not the version)
    QByteArray source;  // what FUNCTION LOAD receives
    QByteArray table;   // the generated policy table and lists within it (what a dry run shows)

    // The policy table alone, as generated (what a dry run shows).
    static QByteArray policyTable(const QVector<Policy> &policies);

    // clockSource replaces lua/clock.lua; only tests pass one (to fix the clock).
    // Each build draws a new secret that makes lease ids unguessable; it is not part of the digest.
    // `lists`: the namespace's allow and deny lists (see namespace_lists.h).
    static LimiterLibrary build(const QVector<Policy> &policies, const QVector<SubjectOverride> &lists,
                                const LibraryOwner &owner, qint64 version, const QByteArray &clockSource = {});

    // Why a library of `bytes` of code may not be loaded (past policy_limits::maxLibraryBytes), in words.
    static QString tooLarge(qint64 bytes);

    // A Lua string literal holding exactly `bytes`: anything but plain characters is a decimal escape.
    static QByteArray luaString(const QByteArray &bytes);
    // What a loaded library's code hashes to, computed as build() computes its digest (over everything after
    // the LIBRARY line): the code Redis runs, whatever the library says of itself. Nullopt for code that is
    // not a Sluice library's.
    static std::optional<QByteArray> digestOfSource(const QByteArray &source);
};

} // namespace sluice::model
