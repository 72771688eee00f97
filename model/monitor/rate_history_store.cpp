// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rate_history_store.h"

#include "model/files/own_files.h"
#include "model/policy/policy.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDataStream>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>
#include <limits>

namespace sluice::model {

namespace {

constexpr quint32 kMagic = 0x534c5248; // "SLRH"
constexpr qint64 kClockSkewMs = 60 * 1000;
constexpr qint64 kPointBytes = 8 + 4 + 4 + 4;
constexpr int kDigestBytes = 32; // SHA-256 of everything before it
// Room left for the header and the names when capping points (a name is at most 64 characters).
constexpr qint64 kHeaderBytes = 64 * 1024;
constexpr qint64 kNameBytes = 4 + 2 * 64 + 4;

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::RateHistoryStore)
};

bool inWindow(const RatePoint &point, qint64 nowMs, qint64 retentionMs)
{
    return point.endMs > nowMs - retentionMs && point.endMs <= nowMs + kClockSkewMs;
}

// The points to keep: inside the window, and no more than the cap holds (the oldest dropped first).
RateSeries bounded(const RateSeries &series, qint64 nowMs, qint64 retentionMs)
{
    RateSeries kept;
    QVector<qint64> ends;
    for (const auto &[policy, points] : series) {
        QVector<RatePoint> &shown = kept[policy];
        for (const RatePoint &point : points)
            if (inWindow(point, nowMs, retentionMs)) {
                shown << point;
                ends << point.endMs;
            }
    }
    for (auto it = kept.begin(); it != kept.end();)
        it = it->second.isEmpty() ? kept.erase(it) : std::next(it);
    const qint64 room
        = (RateHistoryStore::kMaxFileBytes - kHeaderBytes - qint64(kept.size()) * kNameBytes) / kPointBytes;
    const qint64 excess = ends.size() - std::max<qint64>(0, room);
    if (excess <= 0)
        return kept;
    std::nth_element(ends.begin(), ends.begin() + (excess - 1), ends.end());
    const qint64 cutoff = ends.at(excess - 1);
    for (auto &[policy, points] : kept)
        points.erase(std::remove_if(points.begin(), points.end(),
                                    [cutoff](const RatePoint &point) { return point.endMs <= cutoff; }),
                     points.end());
    return kept;
}

// The profile a file says it was recorded for, or nothing when it is not a rate history file of this format.
std::optional<QString> recordedProfile(const QByteArray &bytes)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0;
    quint16 version = 0;
    QString profile;
    in >> magic >> version >> profile;
    if (in.status() != QDataStream::Ok || magic != kMagic || version != RateHistoryStore::kFormatVersion)
        return std::nullopt;
    return profile;
}

} // namespace

RateHistoryStore::RateHistoryStore(const QString &directory, const Identity &identity)
    : m_identity(identity)
{
    // One file per profile, namespace and database; a digest keeps any profile name a valid file name.
    const QByteArray key
        = QStringLiteral("%1\n%2\n%3").arg(identity.profile, identity.ns).arg(identity.database).toUtf8();
    const QString name
        = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha256).toHex().left(32));
    m_path = QDir(directory).filePath(name + QStringLiteral(".rates"));
}

QString RateHistoryStore::defaultDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
        .filePath(QStringLiteral("rate-history"));
}

std::optional<Failure> RateHistoryStore::forgetProfile(const QString &directory, const QString &profile)
{
    if (!isOwnFolder(directory))
        return std::nullopt; // nothing was kept there, or it is not a folder Sluice may sweep
    QStringList kept;
    for (const QFileInfo &entry : QDir(directory).entryInfoList({QStringLiteral("*.rates")}, QDir::Files)) {
        const OwnFileRead file = readOwnFile(entry.filePath(), kMaxFileBytes);
        if (file.missing || file.failure || recordedProfile(file.content) != profile)
            continue;
        if (!QFile::remove(entry.filePath()))
            kept << entry.filePath();
    }
    if (kept.isEmpty())
        return std::nullopt;
    return Failure{Failure::Kind::ServerError,
                   Text::tr("The rate history of \u201c%1\u201d could not be removed: %2")
                       .arg(profile, kept.join(QStringLiteral(", ")))};
}

QByteArray RateHistoryStore::addressDigest() const
{
    return QCryptographicHash::hash(m_identity.address.toUtf8(), QCryptographicHash::Sha256);
}

QByteArray RateHistoryStore::encode(const RateSeries &series, qint64 nowMs, qint64 retentionMs) const
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kMagic << kFormatVersion << m_identity.profile << m_identity.ns << qint32(m_identity.database)
        << addressDigest() << nowMs;
    const RateSeries kept = bounded(series, nowMs, retentionMs);
    out << quint32(kept.size());
    for (const auto &[policy, points] : kept) {
        out << policy << quint32(points.size());
        for (const RatePoint &point : points)
            out << point.endMs << point.spanMs << point.allowed << point.rejected;
    }
    bytes += QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
    return bytes;
}

RateSeries RateHistoryStore::decode(const QByteArray &bytes, qint64 nowMs, qint64 retentionMs, QString *reason) const
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0;
    quint16 version = 0;
    in >> magic >> version;
    if (in.status() != QDataStream::Ok || magic != kMagic) {
        *reason = Text::tr("not a Sluice rate history file");
        return {};
    }
    if (version != kFormatVersion) {
        *reason = Text::tr("format version %1; this build reads version %2").arg(version).arg(kFormatVersion);
        return {};
    }
    const QByteArray body = bytes.left(std::max<qsizetype>(0, bytes.size() - kDigestBytes));
    if (QCryptographicHash::hash(body, QCryptographicHash::Sha256) != bytes.right(kDigestBytes)) {
        *reason = Text::tr("damaged or cut short (its checksum does not match)");
        return {};
    }
    QString profile, ns;
    qint32 database = 0;
    QByteArray address;
    qint64 savedMs = 0;
    quint32 policies = 0;
    in >> profile >> ns >> database >> address >> savedMs >> policies;
    if (in.status() != QDataStream::Ok) {
        *reason = Text::tr("damaged (its header cannot be read)");
        return {};
    }
    if (profile != m_identity.profile || ns != m_identity.ns || database != m_identity.database) {
        *reason = Text::tr("recorded for profile \u201c%1\u201d, namespace \u201c%2\u201d, database %3")
                      .arg(profile, ns)
                      .arg(database);
        return {};
    }
    if (address != addressDigest()) {
        *reason = Text::tr("recorded for another server address");
        return {};
    }
    RateSeries series;
    for (quint32 i = 0; i < policies; ++i) {
        QString policy;
        quint32 count = 0;
        in >> policy >> count;
        if (in.status() != QDataStream::Ok || !isValidPolicyName(policy) || series.count(policy)
            || qint64(count) * kPointBytes > body.size() - in.device()->pos()) {
            *reason = Text::tr("damaged (policy %1 of %2 cannot be read)").arg(i + 1).arg(policies);
            return {};
        }
        QVector<RatePoint> &points = series[policy];
        points.reserve(int(count));
        qint64 previousEnd = std::numeric_limits<qint64>::min();
        for (quint32 j = 0; j < count; ++j) {
            RatePoint point;
            in >> point.endMs >> point.spanMs >> point.allowed >> point.rejected;
            if (point.spanMs <= 0 || point.endMs <= previousEnd) {
                *reason = Text::tr("damaged (the points of %1 are not in time order)").arg(policy);
                return {};
            }
            previousEnd = point.endMs;
            if (inWindow(point, nowMs, retentionMs))
                points << point;
        }
    }
    if (in.status() != QDataStream::Ok || in.device()->pos() != body.size()) {
        *reason = Text::tr("damaged (its length does not match its contents)");
        return {};
    }
    return series;
}

RateSeries RateHistoryStore::load(qint64 nowMs, qint64 retentionMs, QString *reason) const
{
    reason->clear();
    const OwnFileRead file = readOwnFile(m_path, kMaxFileBytes);
    if (file.failure)
        *reason = file.failure->message;
    if (file.missing || file.failure)
        return {};
    return decode(file.content, nowMs, retentionMs, reason);
}

std::optional<Failure> RateHistoryStore::save(const RateSeries &series, qint64 nowMs, qint64 retentionMs) const
{
    if (const auto refused = ensurePrivateFolder(QFileInfo(m_path).absolutePath()))
        return refused;
    return writeWholeFile(m_path, encode(series, nowMs, retentionMs), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

} // namespace sluice::model
