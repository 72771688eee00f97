// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/replay/replay_runner.h"

#include <QWidget>

class QLabel;
class QTabWidget;
class QTableWidget;

namespace sluice::ui {

class CurveChart;
class TimeSeriesChart;

// A limit the operator can take from the replay: a replayed candidate or the suggestion, with what
// the replay predicts it would reject.
struct TunedLimit {
    model::Policy policy;
    double rejectedShare = 0;
    double subjectsRejectedShare = 0;
    bool suggested = false;
};

// What a replay found: the first lines as read (malformed ones marked with the reason), each
// candidate's rejections and the suggestion, the curve from limit to share rejected, the selected
// candidate's rejections over time and its most rejected subjects.
class TuneResults : public QWidget {
    Q_OBJECT
public:
    explicit TuneResults(QWidget *parent = nullptr);

    void clear(const QString &why);
    void showPreview(const QVector<model::PreviewLine> &lines);
    void showResult(const model::ReplayResult &result, const std::optional<model::SuggestRequest> &suggest);
    std::optional<TunedLimit> selected() const;
    QTableWidget *previewTable() const { return m_preview; }
    QTableWidget *candidateTable() const { return m_candidates; }
    CurveChart *curve() const { return m_curve; }
    TimeSeriesChart *overTime() const { return m_overTime; }
    QTableWidget *mostRejected() const { return m_mostRejected; }
    QTabWidget *tabs() const { return m_tabs; }

Q_SIGNALS:
    void selectionChanged();

private:
    void showCandidate();
    void showCurve();

    model::ReplayResult m_result;
    std::optional<model::SuggestRequest> m_suggest;
    QVector<model::CandidateOutcome> m_outcomes; // one per candidate row, the suggestion's last
    QTableWidget *m_preview;
    QTableWidget *m_candidates;
    QTabWidget *m_tabs;
    CurveChart *m_curve;
    QLabel *m_curveNote;
    TimeSeriesChart *m_overTime;
    QTableWidget *m_mostRejected;
};

} // namespace sluice::ui
