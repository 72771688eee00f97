// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redis/connection_options.h"

#include <QString>
#include <QTest>

// Reads the address of a service that the test command (./dev.sh test) started. A missing service
// fails the test with its name: it is never skipped silently.
#define SLUICE_REQUIRE_SERVICE(variable, envName, serviceName)                                                         \
    const QString variable = qEnvironmentVariable(envName);                                                            \
    if (variable.isEmpty())                                                                                            \
        QFAIL(qPrintable(QStringLiteral("%1 is not available: %2 is not set. Run the suite with "                      \
                                        "./dev.sh test, which starts it.")                                             \
                             .arg(QLatin1String(serviceName), QLatin1String(envName))));

namespace sluice::test {

// Options for a URL the test command handed over; fails the calling test on a malformed one.
redis::ConnectionOptions optionsFor(const QString &url);

// A key namespace of its own for one test case ("<prefix><8 hex digits>"), so cases sharing a
// server never see each other's keys.
QString uniqueNamespace(const char *prefix);

// JSON written with single quotes, to keep test tables readable (moc cannot read raw string literals).
QByteArray js(const char *text);

} // namespace sluice::test
