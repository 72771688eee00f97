// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/monitor/rate_history.h"

#include <QString>

#include <optional>

namespace sluice::model {

// The dashboard's per-policy rate history kept on disk between runs, one file per connection
// profile, namespace and database, so the Live tab opens with the last hours filled in without any
// Prometheus. The file holds policy names and counts only (no subject, no address, no secret),
// is written whole or not at all with permissions 0600, and is bounded by the retention and by
// kMaxFileBytes. A file that is damaged, truncated, of another format version, or recorded for
// another profile, namespace, database or server address is not used: load() says why and gives
// nothing, never a partial or foreign series.
class RateHistoryStore {
public:
    static constexpr quint16 kFormatVersion = 1;
    static constexpr qint64 kMaxFileBytes = 8 * 1024 * 1024;

    // What a file belongs to. `address` is where the profile points (its redacted URL): a profile
    // edited to reach another server starts afresh. Only a digest of it reaches the file.
    struct Identity {
        QString profile;
        QString ns;
        int database = 0;
        QString address;
    };

    RateHistoryStore(const QString &directory, const Identity &identity);

    // <AppLocalDataLocation>/rate-history: where the dashboard keeps the files.
    static QString defaultDirectory();
    // Removes every file in `directory` recorded for `profile` (all its namespaces and databases), when the
    // profile is deleted. Files it cannot read as its own (links, devices, others' files) are left alone.
    static std::optional<Failure> forgetProfile(const QString &directory, const QString &profile);
    QString path() const { return m_path; }

    // The points ending in (nowMs - retentionMs, nowMs + a minute of clock skew]; empty, and why
    // in *reason, when the file is absent (reason empty) or cannot be used.
    RateSeries load(qint64 nowMs, qint64 retentionMs, QString *reason) const;
    // Replaces the file with `series` cut to the same window, the oldest points dropped first
    // when it would pass kMaxFileBytes.
    std::optional<Failure> save(const RateSeries &series, qint64 nowMs, qint64 retentionMs) const;

    // The file's bytes (exposed for the tests that damage them).
    QByteArray encode(const RateSeries &series, qint64 nowMs, qint64 retentionMs) const;
    RateSeries decode(const QByteArray &bytes, qint64 nowMs, qint64 retentionMs, QString *reason) const;

private:
    QByteArray addressDigest() const;

    Identity m_identity;
    QString m_path;
};

} // namespace sluice::model
