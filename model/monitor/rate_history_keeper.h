// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/monitor/rate_history_store.h"

#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <memory>

namespace sluice::model {

class PolicyRateSampler;

// Keeps a sampler's series in a RateHistoryStore across runs: start() reads the file back into the
// sampler, then the series are saved every kSaveIntervalMs and once more by finish(). Reading and
// the periodic saves run on a thread of their own (one at a time, in order), so a slow disk never
// stalls the GUI thread; nothing is saved before the file was read back, so a save never replaces
// an earlier run's history it has not restored. Why a file was not used goes to the log
// (sluice.history): the dashboard then starts empty.
class RateHistoryKeeper : public QObject {
    Q_OBJECT
public:
    static constexpr int kSaveIntervalMs = 60 * 1000;

    RateHistoryKeeper(PolicyRateSampler *sampler, const RateHistoryStore &store, QObject *parent = nullptr);
    ~RateHistoryKeeper() override;

    void start();
    // Saves what the sampler holds, on the keeper's thread.
    void saveSoon();
    // Waits for the thread, then saves what the sampler holds: the last call before the sampler goes.
    void finish();
    const RateHistoryStore &store() const { return m_store; }

Q_SIGNALS:
    // The earlier run's series are in the sampler (`reason` says why there were none, if it knows).
    void restored(int policies, const QString &reason);

private:
    struct Loaded {
        RateSeries series;
        QString reason;
    };
    void takeLoaded();
    void save(bool wait);

    QPointer<PolicyRateSampler> m_sampler;
    RateHistoryStore m_store;
    QThreadPool m_thread;
    QTimer m_timer;
    std::shared_ptr<Loaded> m_loaded; // filled on the keeper's thread, taken on the sampler's
    bool m_restored = false;
    bool m_finished = false;
};

} // namespace sluice::model
