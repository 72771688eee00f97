// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"
#include "model/replay/replay_runner.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace sluice::ui {

// The Tune view's questions: which logs, how to read them, which policies to replay them against,
// and which limit to suggest. It reads nothing itself; request() turns it into a replay.
class TuneForm : public QWidget {
    Q_OBJECT
public:
    explicit TuneForm(QWidget *parent = nullptr);

    void setLogs(const QStringList &paths);
    QStringList logs() const { return m_logs; }
    // The stored policies offered as candidates (checked ones are replayed).
    void setStoredPolicies(const QVector<model::Policy> &policies);
    void checkCandidate(const QString &name);
    // The stored policies checked as candidates, in list order.
    QVector<model::Policy> checkedPolicies() const;
    // The replay the form describes, or why it cannot run.
    std::optional<model::ReplayRequest> request(QString *problem) const;
    std::optional<model::SuggestRequest> suggestion(QString *problem) const;
    bool suggests() const;

Q_SIGNALS:
    void openRequested();

private:
    QStringList m_logs;
    QVector<model::Policy> m_stored;
    QPushButton *m_open;
    QLabel *m_logList;
    QComboBox *m_format;
    QLineEdit *m_nginxFormat;
    QLineEdit *m_subject;
    QLineEdit *m_time;
    QLineEdit *m_cost;
    QLineEdit *m_route;
    QListWidget *m_candidates;
    QCheckBox *m_suggest;
    QComboBox *m_algorithm;
    QLineEdit *m_window;
    QDoubleSpinBox *m_burstFactor;
    QDoubleSpinBox *m_target;
    QComboBox *m_of;
};

} // namespace sluice::ui
