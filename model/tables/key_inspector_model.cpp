// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/key_inspector_model.h"

#include "model/format/units.h"
#include "model/monitor/server_status.h"
#include "model/policy/policy_summary.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace sluice::model {

using redis::RedisReply;

KeyInspectorModel::KeyInspectorModel(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
    , m_owner(owner)
    , m_scanner(client, owner.ns)
{
    connect(&m_scanner, &KeyScanner::found, this, &KeyInspectorModel::append);
    connect(&m_scanner, &KeyScanner::fetchDone, this, &KeyInspectorModel::finishPageIfRead);
    m_countdown.setInterval(1000);
    connect(&m_countdown, &QTimer::timeout, this, [this] {
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, FullIn), index(rowCount() - 1, ExpiresIn), {Qt::DisplayRole});
    });
    m_countdown.start();
}

std::optional<Failure> KeyInspectorModel::browse(const BucketFilter &filter)
{
    auto notStarted = scanAfresh(filter, kPageSize);
    m_filter = notStarted ? std::nullopt : std::optional(filter);
    return notStarted;
}

std::optional<Failure> KeyInspectorModel::scanAfresh(const BucketFilter &filter, int wanted)
{
    auto notStarted = m_scanner.start(filter);
    clearRows();
    if (notStarted)
        m_scanner.stop();
    else
        m_scanner.fetch(wanted);
    Q_EMIT loadingChanged();
    return notStarted;
}

void KeyInspectorModel::clearRows()
{
    beginResetModel();
    ++m_generation;
    m_rows.clear();
    m_unread = 0;
    endResetModel();
}

int KeyInspectorModel::rowOf(const QByteArray &key) const
{
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows.at(row).bucket.key == key)
            return row;
    return -1;
}

void KeyInspectorModel::append(const QVector<FoundBucket> &buckets)
{
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(buckets.size()) - 1);
    for (const FoundBucket &bucket : buckets)
        m_rows.append({bucket, std::nullopt, {}});
    endInsertRows();
    for (int row = first; row < m_rows.size(); ++row)
        read(row);
}

void KeyInspectorModel::read(int row)
{
    ++m_unread;
    const int generation = m_generation;
    const FoundBucket &bucket = m_rows.at(row).bucket;
    // A spread policy's subject: each of its buckets read on its own primary, the row summing them.
    const QByteArrayList keys = bucket.spreadKeys.isEmpty() ? QByteArrayList{bucket.key} : bucket.spreadKeys;
    auto states = std::make_shared<QVector<BucketState>>();
    auto problem = std::make_shared<QString>();
    auto unanswered = std::make_shared<int>(int(keys.size()));
    for (const QByteArray &key : keys) {
        m_client->sendForKey(key, BucketState::inspectCommand(m_owner, key, bucket.policy), this,
                             [=](const RedisReply &reply) {
            if (generation != m_generation)
                return;
            QString why;
            if (const auto state = BucketState::fromReply(reply, &why))
                states->append(*state);
            else if (problem->isEmpty())
                *problem = why;
            if (--*unanswered > 0)
                return;
            --m_unread;
            InspectedBucket &inspected = m_rows[row];
            inspected.problem = *problem;
            inspected.state = problem->isEmpty() ? std::optional(BucketState::summed(*states)) : std::nullopt;
            inspected.readAtMs = QDateTime::currentMSecsSinceEpoch();
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
            finishPageIfRead();
        });
    }
}

void KeyInspectorModel::setSpreadPolicies(const QHash<QString, int> &spread)
{
    if (spread == m_scanner.spreadPolicies())
        return;
    m_scanner.setSpreadPolicies(spread);
    // Rows browsed before the policies were known list a spread subject's buckets one by one: browsed again.
    if (!m_rows.isEmpty())
        rescan();
}

QString KeyInspectorModel::nodeText(const FoundBucket &bucket)
{
    return bucket.spreadKeys.isEmpty() ? bucket.node : tr("%1 buckets (spread)").arg(bucket.spreadKeys.size());
}

void KeyInspectorModel::setShadowPolicies(const QSet<QString> &shadow)
{
    if (shadow == m_shadowPolicies)
        return;
    m_shadowPolicies = shadow;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, PolicyColumn), index(int(m_rows.size()) - 1, PolicyColumn));
}

void KeyInspectorModel::reread(int row)
{
    if (row >= 0 && row < m_rows.size())
        read(row);
}

void KeyInspectorModel::rescan()
{
    if (m_filter)
        (void)scanAfresh(*m_filter, std::max(int(m_rows.size()), kPageSize)); // a refusal shows no rows
}

void KeyInspectorModel::finishPageIfRead()
{
    if (isLoading())
        return;
    Q_EMIT pageLoaded();
    Q_EMIT loadingChanged();
}

int KeyInspectorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KeyInspectorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeyInspectorModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const InspectedBucket &row = m_rows.at(index.row());
    const auto column = static_cast<Column>(index.column());
    if (role == Qt::TextAlignmentRole && column != Subject && column != PolicyColumn && column != Algorithm
        && column != Rules && column != Node)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const QString readAt = row.readAtMs > 0 ? formatClock(row.readAtMs) : QString();
    if (role == Qt::ToolTipRole)
        return readAt.isEmpty()
            ? QString::fromUtf8(row.bucket.key)
            : tr("%1\nRead at %2: press Refresh (F5) to read it again.").arg(QString::fromUtf8(row.bucket.key), readAt);
    if (role == SortRole)
        return sortValue(row, column);
    if (role != Qt::DisplayRole)
        return {};
    if (column == ReadAt)
        return readAt;
    switch (column) {
    case Subject: return QString::fromUtf8(row.bucket.subject);
    case PolicyColumn:
        return m_shadowPolicies.contains(row.bucket.policy) ? withShadowMark(row.bucket.policy) : row.bucket.policy;
    case Node: return nodeText(row.bucket);
    default: break;
    }
    if (!row.state)
        return column == Algorithm ? (row.problem.isEmpty() ? tr("reading\u2026") : row.problem) : QVariant();
    const BucketState &state = *row.state;
    const QLocale locale;
    // Both count down from the read: what they say now, if no call came since.
    const qint64 sinceRead = std::max<qint64>(0, QDateTime::currentMSecsSinceEpoch() - row.readAtMs);
    switch (column) {
    case Algorithm: return state.algorithm;
    case Available: return tr("%1 of %2").arg(locale.toString(state.available), locale.toString(state.capacity));
    case FullIn:
        if (state.resetAfterMs <= 0)
            return tr("full");
        return state.resetAfterMs <= sinceRead ? tr("full by now") : formatWait(state.resetAfterMs - sinceRead);
    case ExpiresIn:
        if (state.ttlMs == -2)
            return tr("no key (full)"); // expired or reset since the scan found it
        if (state.ttlMs == -1)
            return tr("never");
        return state.ttlMs <= sinceRead ? tr("expired") : formatWait(state.ttlMs - sinceRead);
    case Allowed: return locale.toString(state.allowed);
    case Rejected: return locale.toString(state.rejected);
    case Rules: return state.rulesText();
    default: return {};
    }
}

QVariant KeyInspectorModel::sortValue(const InspectedBucket &row, Column column)
{
    switch (column) {
    case Subject: return QString::fromUtf8(row.bucket.subject);
    case PolicyColumn: return row.bucket.policy;
    case Node: return nodeText(row.bucket);
    case ReadAt: return row.readAtMs;
    default: break;
    }
    if (!row.state)
        return column == Algorithm ? QVariant(QString()) : QVariant(qint64(-1)); // unread rows sort first
    const BucketState &state = *row.state;
    switch (column) {
    case Algorithm: return state.algorithm;
    case Available: return state.available;
    case FullIn: return state.resetAfterMs;
    case ExpiresIn: return state.ttlMs;
    case Allowed: return state.allowed;
    case Rejected: return state.rejected;
    case Rules: return state.rulesText();
    default: return {};
    }
}

QVariant KeyInspectorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Subject: return tr("Subject");
    case PolicyColumn: return tr("Policy");
    case Algorithm: return tr("Algorithm");
    case Available: return tr("Available");
    case FullIn: return tr("Full in");
    case ExpiresIn: return tr("Expires in");
    case Allowed: return tr("Allowed");
    case Rejected: return tr("Rejected");
    case Rules: return tr("Rules");
    case ReadAt: return tr("Read at");
    case Node: return tr("Primary");
    case ColumnCount: break;
    }
    return {};
}

bool KeyInspectorModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_scanner.isStarted() && !m_scanner.atEnd() && !isLoading();
}

void KeyInspectorModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    m_scanner.fetch(kPageSize);
    Q_EMIT loadingChanged();
}

} // namespace sluice::model
