// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/monitor/rejected_tally.h"
#include "model/monitor/top_rejected.h"
#include "model/policy/audit_follower.h"
#include "model/policy/audit_log.h"

#include <QPointer>
#include <QSet>
#include <QWidget>

#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QLayout;
class QPushButton;
class QTableWidget;

namespace sluice::ui {

class TimeSeriesChart;

// One policy's allowed and rejected decisions per second over time, and its most rejected
// subjects right now. The sampling interval and retention are the session's (the overview shares
// them); pausing freezes the chart while sampling goes on.
class PolicyLiveView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit PolicyLiveView(model::ConnectionSession *session, QWidget *parent = nullptr);

    void showPolicy(const QString &policy);
    QString policy() const;
    QString stateText() const;
    // "Shadow - would reject" when the policy shown is in shadow mode; empty otherwise.
    QString shadowBadgeText() const;
    // The shown policy's definition as published: algorithm, limit in words, mode, version.
    QString definitionText() const;
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }

    TimeSeriesChart *chart() const { return m_chart; }
    QTableWidget *topTable() const { return m_top; }
    // The shown span of the policy's series, as CSV (time, span, counts and rates per sample).
    bool exportCsv(const QString &path, QString *error) const;
    bool exportPng(const QString &path, QString *error) const;

Q_SIGNALS:
    // "Watch" on a subject of the top list: follow its bucket in the per-key view.
    void watchRequested(const QString &policy, const QByteArray &subject);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    QLayout *createControls();
    QWidget *createChartBox();
    QWidget *createTopList();
    void showState(const QString &text);
    void showShadowBadge();
    void showDefinition();
    void takeSample(const model::RateSample &sample);
    void takeRestored();
    void redraw();
    void readMarks();
    QString comparedPolicy() const;
    // Every list of policies on the tab: the chart's and the one beside it.
    void addPolicies(const QStringList &policies);
    void showMarks();
    void showTop(const model::TopRejected &reply);
    void showTopList();
    std::optional<std::pair<qint64, qint64>> keptSpan() const;
    void pickRange();
    void showRangeNote();
    void applyInterval();
    void applyRetention();
    void chooseExportFile(bool png);

    QPointer<model::ConnectionSession> m_session;
    model::TopRejectedPoller *m_poller = nullptr;
    model::AuditFollower *m_audit = nullptr;   // new entries in the audit log: the chart's marks read again
    QVector<model::AuditEntry> m_auditEntries; // the newest, for the marks
    QComboBox *m_policy;
    QComboBox *m_compare; // another policy drawn beside, faint, or none
    QComboBox *m_interval;
    QComboBox *m_retention;
    QComboBox *m_span;
    QPushButton *m_pause;
    QPushButton *m_resetZoom;
    QLabel *m_state;
    QLabel *m_shadowBadge;
    QSet<QString> m_shadowPolicies; // as the published library defines them
    QHash<QString, model::Policy> m_published;
    model::TopRejected m_lastReply;              // the library's last summaries, for the policy shown
    model::RejectedTally m_tally;                // their differences, for the window picked
    QVector<model::RejectedSubject> m_lastNamed; // the last list that named someone
    qint64 m_lastNamedAtMs = 0;                  // and when it was read
    QComboBox *m_topWindow;
    qint64 m_publishedVersion = 0;
    QLabel *m_definition;
    TimeSeriesChart *m_chart;
    QTableWidget *m_top;
    QLabel *m_topNote;
    QPushButton *m_watch;
    bool m_paused = false;
    qint64 m_lastEndMs = 0;
    static constexpr qint64 chosenRange = -1;         // the span choice that opens the range picker
    int m_spanIndex = 0;                              // the span choice in force (the one Cancel goes back to)
    std::optional<std::pair<qint64, qint64>> m_range; // a chosen range, shown instead of the span
    QLabel *m_rangeNote;
};

} // namespace sluice::ui
