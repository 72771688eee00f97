// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/limiter/seed_layouts.h"
#include "model/monitor/key_watch.h"

#include <QString>
#include <QVector>

#include <optional>

class QSettings;

namespace sluice::model {

// One bucket a profile's watch list holds: what was watched, never what was read.
struct WatchEntry {
    QString policy; // a Sluice subject's policy; empty for a seed layout's key
    std::optional<SeedLayout> layout;
    QByteArray subject; // the subject, or the seed layout's id / key
    std::optional<SeedParameters> parameters;
};

// A connection profile's watch list, kept in the settings every Sluice program shares (under
// ProfileSettings::keptKey, which follows the profile), so it outlives a switch and a restart.
// Entries that cannot be read back are left out.
class WatchListStore {
public:
    WatchListStore(QSettings *settings, const QString &profile);

    QVector<WatchEntry> load() const;
    void save(const QVector<WatchedKey> &keys);

private:
    QSettings *m_settings;
    QString m_profile;
};

} // namespace sluice::model
