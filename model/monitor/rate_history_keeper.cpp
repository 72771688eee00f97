// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/monitor/rate_history_keeper.h"

#include "model/model_log.h"
#include "model/monitor/policy_rate_sampler.h"

#include <QDateTime>
#include <QElapsedTimer>

namespace sluice::model {

RateHistoryKeeper::RateHistoryKeeper(PolicyRateSampler *sampler, const RateHistoryStore &store, QObject *parent)
    : QObject(parent)
    , m_sampler(sampler)
    , m_store(store)
{
    m_thread.setMaxThreadCount(1); // saves land in the order they were taken
    m_timer.setInterval(kSaveIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &RateHistoryKeeper::saveSoon);
}

RateHistoryKeeper::~RateHistoryKeeper()
{
    m_thread.waitForDone(); // its jobs use this keeper's store
}

void RateHistoryKeeper::start()
{
    if (!m_sampler || m_loaded || m_restored)
        return;
    auto loaded = std::make_shared<Loaded>();
    m_loaded = loaded;
    const qint64 retentionMs = m_sampler->retentionMs();
    m_thread.start([this, loaded, retentionMs] {
        loaded->series = m_store.load(QDateTime::currentMSecsSinceEpoch(), retentionMs, &loaded->reason);
        QMetaObject::invokeMethod(this, &RateHistoryKeeper::takeLoaded, Qt::QueuedConnection);
    });
    m_timer.start();
}

void RateHistoryKeeper::takeLoaded()
{
    if (m_restored || !m_loaded)
        return;
    m_restored = true;
    const std::shared_ptr<Loaded> loaded = std::move(m_loaded);
    if (!loaded->reason.isEmpty())
        qCWarning(lcHistory).noquote() << "rate history" << m_store.path() << "not used:" << loaded->reason
                                       << "- the charts start empty";
    else
        qCDebug(lcHistory).noquote() << "rate history of" << loaded->series.size() << "policies read from"
                                     << m_store.path();
    if (m_sampler)
        m_sampler->restore(loaded->series);
    Q_EMIT restored(int(loaded->series.size()), loaded->reason);
}

void RateHistoryKeeper::saveSoon()
{
    if (m_thread.activeThreadCount() == 0) // else the previous save is still writing: the next tick takes this one
        save(false);
}

void RateHistoryKeeper::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    m_timer.stop();
    m_thread.waitForDone();
    takeLoaded(); // read back but not yet handed over: what the file held is kept
    save(true);
}

void RateHistoryKeeper::save(bool wait)
{
    if (!m_restored || !m_sampler)
        return;
    auto job = [this, series = m_sampler->series(), retentionMs = m_sampler->retentionMs()] {
        QElapsedTimer took;
        took.start();
        if (const auto failure = m_store.save(series, QDateTime::currentMSecsSinceEpoch(), retentionMs))
            qCWarning(lcHistory).noquote() << "rate history not saved:" << failure->message;
        else
            qCDebug(lcHistory).noquote() << "rate history saved to" << m_store.path() << "in"
                                         << took.nsecsElapsed() / 1000 << "us";
    };
    if (wait)
        job();
    else
        m_thread.start(job);
}

} // namespace sluice::model
