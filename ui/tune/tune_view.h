// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/replay/replay_runner.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace sluice::ui {

class Banner;
class TuneForm;
class TuneResults;

// The Tune tab: choosing a limit from real traffic. Open access logs, replay them against stored
// policies and a suggestion on a thread of its own (progress with lines/s, cancel at any time), see
// the first lines as read, each candidate's rejections, the curve from limit to share rejected and
// the most affected subjects; then "Use this limit" opens the policy editor filled in, and "Publish
// as shadow" stores the limit as a shadow twin of the live policy (shadow_of) to measure it live.
// Works without a connection too, for the suggestion alone.
class TuneView : public QWidget {
    Q_OBJECT
public:
    explicit TuneView(model::ConnectionSession *session, QWidget *parent = nullptr);

    TuneForm *form() const { return m_form; }
    TuneResults *results() const { return m_results; }
    void openLogs(const QStringList &paths);
    // Starts a replay as the form says; false (and why, shown) when it cannot.
    bool replay();
    void cancel();
    bool isRunning() const { return m_running; } // from replay() until its result is shown
    QString statusText() const;
    QPushButton *useButton() const { return m_use; }
    QPushButton *shadowButton() const { return m_shadow; }

Q_SIGNALS:
    void publishRequested(); // the operator asked to publish the library after storing a twin

protected:
    void showEvent(QShowEvent *event) override;

private:
    void loadPolicies();
    void chooseLogs();
    void showProgress(const model::ReplayProgress &progress);
    void showFinished(const model::ReplayResult &result);
    void updateActions();
    void useLimit();
    void publishAsShadow();
    std::optional<model::Policy> livePolicy() const; // the one checked stored policy the twin would follow

    QPointer<model::ConnectionSession> m_session;
    model::ReplayRunner m_runner;
    std::optional<model::SuggestRequest> m_suggest; // of the replay running or shown
    bool m_running = false;
    QVector<model::Policy> m_stored;
    QVector<model::SubjectOverride> m_lists; // the namespace's, which replayed candidates apply
    TuneForm *m_form;
    TuneResults *m_results;
    QPushButton *m_run;
    QProgressBar *m_progress;
    QLabel *m_status;
    Banner *m_banner;
    bool m_bannerTellsReadError = false; // a later read that succeeds takes it down
    QPushButton *m_publish;
    QPushButton *m_use;
    QPushButton *m_shadow;
};

} // namespace sluice::ui
