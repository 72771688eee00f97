// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/limiter/bucket_state.h"
#include "model/limiter/library_owner.h"
#include "model/monitor/key_scanner.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QTimer>

#include <optional>

namespace sluice::model {

struct InspectedBucket {
    FoundBucket bucket;
    std::optional<BucketState> state; // empty until read, or when it could not be
    QString problem;                  // why it could not be read
    qint64 readAtMs = 0;              // when its state was read (this machine's clock); 0 until then
};

// The key inspector's rows: bucket keys as the scanner finds them, a page at a time when the view
// asks for more (canFetchMore/fetchMore), each decoded with sluice_inspect on its own primary.
class KeyInspectorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Subject,
        PolicyColumn,
        Algorithm,
        Available,
        FullIn,
        ExpiresIn,
        Allowed,
        Rejected,
        Rules, // the subject's override, list or penalty block (BucketState::rulesText)
        ReadAt,
        Node,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // raw numbers for the numeric columns, text for the others
    };
    static constexpr int kPageSize = 200;

    KeyInspectorModel(redis::RedisClient *client, const LibraryOwner &owner, QObject *parent = nullptr);

    // Starts browsing afresh (the first page is fetched at once), or says why not (the filter is
    // not valid, or nothing is connected), and then shows no rows: none of them would be the filter's.
    [[nodiscard]] std::optional<Failure> browse(const BucketFilter &filter);
    const KeyScanner &scanner() const { return m_scanner; }
    bool isLoading() const { return m_scanner.isFetching() || m_unread > 0; }
    const InspectedBucket &bucket(int row) const { return m_rows.at(row); }
    int rowOf(const QByteArray &key) const; // -1 when not shown
    // The published shadow policies: their rows' Policy says "[shadow]", as the Overview does.
    void setShadowPolicies(const QSet<QString> &shadow);
    const QSet<QString> &shadowPolicies() const { return m_shadowPolicies; }
    // The spread policies (name: buckets, see Policy::spread): each subject's buckets are one row, summed, from
    // the next browse.
    void setSpreadPolicies(const QHash<QString, int> &spread);
    // Reads one row again (after a reset, say).
    void reread(int row);
    // Refresh: scans again with the last filter, as far as the rows shown went, reading every bucket afresh
    // (buckets created since appear, those gone go). Nothing when nothing was browsed.
    void rescan();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    // A fetch has ended and every row it brought has been read: the page is complete.
    void pageLoaded();
    void loadingChanged();

private:
    static QVariant sortValue(const InspectedBucket &row, Column column);
    static QString nodeText(const FoundBucket &bucket); // its primary, or how many buckets a spread subject has
    void append(const QVector<FoundBucket> &buckets);
    void read(int row);
    void finishPageIfRead();
    void clearRows();
    // Starts over with `filter`, fetching until `wanted` rows; when refused, no rows and nothing to fetch.
    [[nodiscard]] std::optional<Failure> scanAfresh(const BucketFilter &filter, int wanted);

    redis::RedisClient *m_client;
    LibraryOwner m_owner;
    KeyScanner m_scanner;
    QVector<InspectedBucket> m_rows;
    QSet<QString> m_shadowPolicies;
    int m_unread = 0;                     // rows of this browse whose sluice_inspect has not answered
    int m_generation = 0;                 // replies for rows of an earlier browse are dropped
    std::optional<BucketFilter> m_filter; // the last filter browsed
    QTimer m_countdown;                   // "Full in" and "Expires in" count down from each row's read, each second
};

} // namespace sluice::model
