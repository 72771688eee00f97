// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QString>

#include <chrono>

namespace sluice::model {

// Which primaries' library code was last read and found to hash to the digest the library claims, and
// when, so an inspection that runs often (the exporter's, on every scrape) reads the code (FUNCTION LIST
// ... WITHCODE, megabytes at the largest library) at most once per interval, as the dashboard's drift watch
// does. A copy edited by hand that keeps its claim is caught when the interval is over; a library that
// claims another digest (a publish) is read at once; one found changed is read again on every inspection
// until it is replaced, since it is never vouched for.
class RunningCodeMemo {
public:
    static constexpr std::chrono::milliseconds defaultInterval{30000};

    explicit RunningCodeMemo(std::chrono::milliseconds interval = defaultInterval)
        : m_interval(interval)
    {
    }

    // Whether `node`'s code was read within the interval (it need not be read again unless its claim changed).
    bool isFresh(const QString &node) const
    {
        const auto read = m_reads.constFind(node);
        return read != m_reads.cend() && !read->clock.hasExpired(m_interval.count());
    }
    // Whether, within the interval, `node`'s code was found to hash to `claimed`, the digest it claims now.
    bool vouchesFor(const QString &node, const QByteArray &claimed) const
    {
        return isFresh(node) && m_reads.value(node).claimed == claimed;
    }
    // `node`'s code was just read and hashes to `claimed`, the digest it claims.
    void remember(const QString &node, const QByteArray &claimed)
    {
        Read &read = m_reads[node];
        read.claimed = claimed;
        read.clock.start();
    }

private:
    struct Read {
        QByteArray claimed;
        QElapsedTimer clock;
    };
    std::chrono::milliseconds m_interval;
    QHash<QString, Read> m_reads;
};

} // namespace sluice::model
