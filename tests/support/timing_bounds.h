// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace sluice::test {

// How late a timeout may fire on a loaded 2-core machine (two busy loops beside the suite) and still
// count as firing at its setting.
constexpr int timeoutSlackMs = 300;

// Why `elapsedMs` is no timeout of `settingMs`: it fired before 0.9 times the setting (so it would
// report live calls as failed) or after the setting plus timeoutSlackMs plus `overheadMs` (what the
// measurement holds besides the wait, such as starting a process). Empty when it is one.
inline QString outsideTimeoutBounds(qint64 elapsedMs, int settingMs, qint64 overheadMs = 0)
{
    if (elapsedMs * 10 < settingMs * 9LL)
        return QStringLiteral("gave up after %1 ms, before 0.9 x its %2 ms").arg(elapsedMs).arg(settingMs);
    if (elapsedMs > settingMs + timeoutSlackMs + overheadMs)
        return QStringLiteral("gave up after %1 ms, later than its %2 ms + %3 ms (+ %4 ms overhead)")
            .arg(elapsedMs)
            .arg(settingMs)
            .arg(timeoutSlackMs)
            .arg(overheadMs);
    return {};
}

} // namespace sluice::test

// SLUICE_VERIFY_TIMEOUT(elapsedMs, settingMs[, overheadMs]): fails the test when elapsedMs is no
// timeout of settingMs (see outsideTimeoutBounds).
#define SLUICE_VERIFY_TIMEOUT(...)                                                                                     \
    do {                                                                                                               \
        const QString sluiceTimeoutError = sluice::test::outsideTimeoutBounds(__VA_ARGS__);                            \
        QVERIFY2(sluiceTimeoutError.isEmpty(), qPrintable(sluiceTimeoutError));                                        \
    } while (false)
