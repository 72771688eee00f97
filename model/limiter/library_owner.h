// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace sluice::model {

// Whom a limiter library serves: one namespace in one database. Functions are server-wide, so each
// owner loads a library of its own under a name no other owner's can take: `sluice` for namespace
// sluice in database 0 (the functions services have always called: sluice_acquire, ...), otherwise
// `sluice_<namespace>` plus `_db<N>` outside database 0, with the namespace spelled in the letters a
// library name allows (`_` as `__`, `.` as `_p`, `-` as `_m`). Its functions are `<library>_<verb>`.
struct LibraryOwner {
    QString ns = QStringLiteral("sluice");
    int database = 0;

    QByteArray libraryName() const;
    // "<libraryName>_<verb>": sluice_acquire, sluice_teamb_acquire, sluice_teamb_db2_stats.
    QByteArray function(const char *verb) const;
    // For messages: namespace "teamb" in database 2.
    QString describe() const;
    // The owner a library name spells, or nothing for a name no owner's library has.
    static std::optional<LibraryOwner> fromLibraryName(const QByteArray &name);

    bool operator==(const LibraryOwner &other) const { return ns == other.ns && database == other.database; }
    bool operator!=(const LibraryOwner &other) const { return !(*this == other); }
};

} // namespace sluice::model
