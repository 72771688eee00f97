// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/watch_list_store.h"

#include "model/connection/connection_profile.h"

#include <QSettings>
#include <QVariantMap>

namespace sluice::model {

namespace {

QString keyOf(const QString &profile)
{
    return ProfileSettings::keptKey(ProfileSettings::Kept::WatchList, profile);
}

std::optional<SeedLayout> layoutNamed(const QString &name)
{
    for (SeedLayout layout : seedLayouts)
        if (seedLayoutName(layout) == name)
            return layout;
    return std::nullopt;
}

QVariantMap encode(const WatchedKey &key)
{
    QVariantMap entry{{QStringLiteral("subject"), key.subject.toBase64()}};
    if (key.layout)
        entry.insert(QStringLiteral("layout"), seedLayoutName(*key.layout));
    else
        entry.insert(QStringLiteral("policy"), key.policy);
    if (key.parameters) {
        entry.insert(QStringLiteral("limit"), key.parameters->limit);
        entry.insert(QStringLiteral("window_ms"), key.parameters->windowMs);
        entry.insert(QStringLiteral("burst"), key.parameters->burst);
    }
    return entry;
}

std::optional<WatchEntry> decode(const QVariantMap &stored)
{
    WatchEntry entry;
    entry.subject = QByteArray::fromBase64(stored.value(QStringLiteral("subject")).toByteArray());
    if (entry.subject.isEmpty())
        return std::nullopt;
    if (stored.contains(QStringLiteral("layout"))) {
        entry.layout = layoutNamed(stored.value(QStringLiteral("layout")).toString());
        if (!entry.layout)
            return std::nullopt;
    } else {
        entry.policy = stored.value(QStringLiteral("policy")).toString();
        if (entry.policy.isEmpty())
            return std::nullopt;
    }
    if (stored.contains(QStringLiteral("limit")))
        entry.parameters = SeedParameters{stored.value(QStringLiteral("limit")).toLongLong(),
                                          stored.value(QStringLiteral("window_ms")).toLongLong(),
                                          stored.value(QStringLiteral("burst")).toLongLong()};
    return entry;
}

} // namespace

WatchListStore::WatchListStore(QSettings *settings, const QString &profile)
    : m_settings(settings)
    , m_profile(profile)
{
}

QVector<WatchEntry> WatchListStore::load() const
{
    QVector<WatchEntry> entries;
    const QVariantList stored = m_settings->value(keyOf(m_profile)).toList();
    for (const QVariant &value : stored)
        if (const auto entry = decode(value.toMap()); entry && entries.size() < KeyWatch::kMaxKeys)
            entries.append(*entry);
    return entries;
}

void WatchListStore::save(const QVector<WatchedKey> &keys)
{
    QVariantList stored;
    for (const WatchedKey &key : keys)
        stored.append(encode(key));
    if (stored.isEmpty())
        m_settings->remove(keyOf(m_profile));
    else
        m_settings->setValue(keyOf(m_profile), stored);
    m_settings->sync();
}

} // namespace sluice::model
