// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"
#include "model/replay/log_format.h"
#include "model/replay/log_source.h"
#include "model/replay/subject_table.h"

#include <QStringList>
#include <QVector>
#include <queue>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace sluice::model {

// One request as the replay sees it: when, who (a SubjectTable number) and how many units.
struct Arrival {
    qint64 ms = 0;
    quint32 subject = 0;
    quint32 cost = 1;
};

// Why one line was not replayed.
struct LineProblem {
    QString source;
    qint64 line = 0;
    QString reason;
};

// One of the first lines read, as the preview shows it.
struct PreviewLine {
    QString source;
    qint64 line = 0;
    QString text;   // the line as read, cut at 240 characters, its bytes escaped as subjects are
    QString reason; // why it was not replayed; empty when it parsed (or was left out on purpose)
    bool skipped = false;
    qint64 ms = 0; // when parsed
    QByteArray subject;
    qint64 cost = 0;
};

struct LogReadStats {
    static constexpr int kProblemsKept = 20;
    static constexpr int kPreviewLines = 20;

    qint64 lines = 0;     // read, blank ones included
    qint64 malformed = 0; // not replayed: unreadable, too long, or beyond the reorder window
    qint64 skipped = 0;   // left out on purpose: headers, blank lines, other routes, a cost of 0
    qint64 requests = 0;  // replayed
    qint64 firstMs = 0, lastMs = 0;
    bool secondsSpread = false;    // some lines gave whole seconds, spread evenly over their second
    QVector<LineProblem> problems; // the first kProblemsKept malformed lines
    QStringList formats;           // each log's format, as it was read
    QVector<PreviewLine> preview;  // the first kPreviewLines lines, whatever became of them
};

// Reads several logs at once as one stream of arrivals in time order: each log's next line is
// taken from the one that is earliest, and lines out of order by up to `reorderWindowMs` (merged
// logs, a proxy writing as requests end) are put back in order; a line later than that is counted as
// malformed. A second's worth of whole-second lines is spread evenly over it, in the order read.
class LogReader {
public:
    LogReader(const LogSpec &spec, qint64 reorderWindowMs, SubjectTable *subjects);
    ~LogReader();

    // Opens every log ("-" is standard input); why not when one cannot be read.
    [[nodiscard]] std::optional<Failure> open(const QStringList &paths);
    // The next arrival; false at the end, or when a log cannot be read in this spec or holds more
    // subjects than the table takes (then failure() says why).
    bool next(Arrival *arrival);
    const LogReadStats &stats() const { return m_stats; }
    const std::optional<Failure> &failure() const { return m_failure; }
    // How much of the logs is read, 0 to 1; -1 when a size is not known (a pipe).
    double progress() const;
    // A flag that, once set, ends reading inside a line that never ends (/dev/zero) too.
    void setCancelFlag(const std::atomic<bool> *cancel) { m_cancel = cancel; }

private:
    struct Input;
    struct Pending {
        qint64 ms;
        quint64 sequence;
        quint32 subject;
        quint32 cost;
        bool wholeSecond;
        bool operator>(const Pending &other) const
        {
            return ms != other.ms ? ms > other.ms : sequence > other.sequence;
        }
    };

    bool readHead(Input &input);
    void addPreview(const Input &input, QByteArrayView line, LineVerdict verdict, const QString &reason);
    void malformed(const Input &input, const QString &reason);
    bool pullOne();
    void release();

    LogSpec m_spec;
    qint64 m_window;
    SubjectTable *m_subjects;
    std::vector<std::unique_ptr<Input>> m_inputs;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> m_pending;
    std::vector<Arrival> m_ready; // released, in order, taken from m_readyAt
    size_t m_readyAt = 0;
    qint64 m_latestMs = 0; // the latest time read so far
    qint64 m_releasedMs = std::numeric_limits<qint64>::min();
    quint64 m_sequence = 0;
    LogReadStats m_stats;
    std::optional<Failure> m_failure;
    const std::atomic<bool> *m_cancel = nullptr;
};

} // namespace sluice::model
