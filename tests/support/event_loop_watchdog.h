#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace sluice::test {

// Measures how long the event loop of the calling thread goes without running a 5 ms timer: the
// largest gap is the longest stall a user would have felt.
class EventLoopWatchdog : public QObject {
    Q_OBJECT
public:
    EventLoopWatchdog();
    void start();
    qint64 longestStallMs() const { return m_longest; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longest = 0;
};

} // namespace sluice::test
