#include "support/event_loop_watchdog.h"

#include <algorithm>

namespace sluice::test {

EventLoopWatchdog::EventLoopWatchdog()
{
    m_timer.setInterval(5);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        const qint64 now = m_clock.elapsed();
        // A tick is due every 5 ms; anything beyond that is time the loop was busy or blocked.
        m_longest = std::max(m_longest, now - m_last - 5);
        m_last = now;
    });
}

void EventLoopWatchdog::start()
{
    m_clock.start();
    m_last = 0;
    m_longest = 0;
    m_timer.start();
}

} // namespace sluice::test
