// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/fire/fire_engine.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLayout;
class QLineEdit;
class QPushButton;
class QSettings;
class QSpinBox;
class QTableWidget;

namespace sluice::ui {

class FireTargetPicker;
class LatencyBars;
class TimeSeriesChart;

// The test-fire panel: choose a policy (or a seed script), a second one to run side by side,
// subjects, shape, connections, cost and duration; start and stop. While it runs, each target's
// allowed and rejected calls per 100 ms are drawn beside what its reference model expects for the
// same calls, with latency percentiles and a histogram; the summary table and a CSV export follow.
// The engine sends from its own thread on its own connections: nothing here waits on Redis.
class FireView : public QWidget {
    Q_OBJECT
public:
    // `session` is the connection it shows for its whole life (none: not connected); the window builds the
    // views anew for another.
    explicit FireView(model::ConnectionSession *session, QWidget *parent = nullptr);
    ~FireView() override;

    // The plan the form describes (targets included); its problems say what is wrong with it.
    model::FirePlan plan() const;
    // Starts a run as the form says; false (and why, shown) when it cannot.
    bool start();
    void stop();
    bool isRunning() const { return m_engine && m_engine->isRunning(); }
    const model::FireReport &report() const { return m_engine->report(); }
    bool exportCsv(const QString &path, QString *error) const;
    // Takes the form's choices `settings` kept for `profile`, and keeps them there: at each start, and when
    // the view goes (a switch, the window closing).
    void keepChoicesIn(QSettings *settings, const QString &profile);
    FireTargetPicker *firstTarget() const { return m_first; }
    FireTargetPicker *secondTarget() const { return m_second; }
    TimeSeriesChart *chart(int target) const { return m_charts[target]; }
    QString statusText() const;
    QString errorText() const;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void followSession(model::ConnectionSession *session);
    QWidget *createForm();
    QLayout *createResults();
    void loadPolicies();
    void showShapeFields();
    void startEngine(const model::FirePlan &plan);
    void showProgress();
    void showFinished();
    void showError(const QString &error);
    void updateActions();
    void chooseExportFile();
    void saveChoices() const;

    QPointer<model::ConnectionSession> m_session;
    model::FireEngine *m_engine = nullptr;
    qint64 m_runStartedMs = 0; // wall clock, for the charts' time axis
    bool m_policiesLoaded = false;
    bool m_policiesUnreadable = false; // the error line says the stored policies could not be read
    QSettings *m_choicesSettings = nullptr;
    QString m_choicesKey;

    FireTargetPicker *m_first;
    FireTargetPicker *m_second;
    QComboBox *m_subjects;
    QLineEdit *m_subjectName;
    QSpinBox *m_subjectCount;
    QComboBox *m_shape;
    QDoubleSpinBox *m_rate;
    QDoubleSpinBox *m_rampTo;
    QSpinBox *m_burst;
    QSpinBox *m_every;
    QSpinBox *m_pipeline;
    QSpinBox *m_connections;
    QSpinBox *m_cost;
    QDoubleSpinBox *m_duration;
    QCheckBox *m_realKeys;
    QCheckBox *m_reserve;
    QSpinBox *m_actualMin;
    QSpinBox *m_actualMax;
    QWidget *m_actualRange;
    QSpinBox *m_settleAfter;
    QFormLayout *m_form;
    QPushButton *m_start;
    QPushButton *m_stop;
    QPushButton *m_export;
    QLabel *m_error;
    QLabel *m_status;
    QLabel *m_chartTitles[2];
    TimeSeriesChart *m_charts[2];
    QLabel *m_latencyText;
    LatencyBars *m_latency;
    QTableWidget *m_summary;
};

} // namespace sluice::ui
