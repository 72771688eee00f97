// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSet>
#include <QWidget>

#include <deque>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace sluice::model {
class PolicyRatesModel;
}

namespace sluice::ui {

// The overview's live part: every policy with its limit in words, allowed/s, rejected/s, the
// rejected share, the subject it rejects most now (one action away from its bucket) and the last
// minute's trend, most rejections first, updated at each sample; and how many commands per second
// the dashboard itself sends to Redis.
class PolicyRatesTable : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit PolicyRatesTable(model::ConnectionSession *session, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    QString statusText() const;
    QString loadText() const;
    // Decisions per second now, rejections kept apart from what shadow policies would reject.
    QString totalsText() const;

Q_SIGNALS:
    // Double-click or Enter on a policy: show its charts.
    void policyActivated(const QString &policy);
    // "Watch the most rejected" (Ctrl+W) on a policy's row: that subject's bucket.
    void watchRequested(const QString &policy, const QByteArray &subject);

protected:
    // While the pointer is over the rows they keep their places (the figures still update), so the row
    // under it stays the one it points at; they take their ranks again when it leaves. A tooltip shown
    // follows its cell's figure.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    void refreshShownTooltip();
    // Sorts the rows again by the column and order chosen (the pointer's pause over, or rows added).
    void rank();
    // The sparkline column's width, from the rows' width.
    void fitTrendColumn();
    void takeSample(const model::RateSample &sample);
    void showLoad();
    void showTotals(const model::RateSample &sample);
    QByteArray selectedTopSubject() const;
    void updateActions();
    void watchSelectedTopSubject();

    QPointer<model::ConnectionSession> m_session;
    model::PolicyRatesModel *m_model = nullptr;
    QSortFilterProxyModel *m_ranked = nullptr;
    QTableView *m_view = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_load = nullptr;
    QLabel *m_totals = nullptr;
    QPushButton *m_watchTop = nullptr;
    QSet<QString> m_shadow; // as the published library defines them
    // (elapsed ms, commands sent) over the last few seconds: the dashboard's own load.
    std::deque<std::pair<qint64, quint64>> m_sent;
    QElapsedTimer m_clock;
};

} // namespace sluice::ui
