#pragma once

#include "model/policy.h"

#include <QByteArray>
#include <QVector>

namespace sluice::model {

// The `sluice` Functions library as it is loaded into Redis: the static limiter code from lua/
// behind a generated header holding the policies. Policy data enters the source only as escaped
// literals, so no name or description can become Lua code.
struct LimiterLibrary {
    qint64 version = 0;  // publish generation; bumped when the digest changes
    QByteArray digest;   // identifies the policies and code the library runs (not the version)
    QByteArray source;   // what FUNCTION LOAD receives
    QByteArray table;    // the generated policy table within it (what a dry run shows)

    // The policy table alone, as generated (what a dry run shows).
    static QByteArray policyTable(const QVector<Policy> &policies);

    // clockSource replaces lua/clock.lua; only tests pass one (to fix the clock).
    static LimiterLibrary build(const QVector<Policy> &policies, const QString &ns, qint64 version,
                                const QByteArray &clockSource = {});

    // A Lua string literal holding exactly `bytes`: anything but plain characters is a decimal escape.
    static QByteArray luaString(const QByteArray &bytes);
};

// The bucket key of one subject under one policy: `<ns>:<policy>:{<subject>}` (the subject is the
// Cluster hash tag).
QByteArray bucketKey(const QString &ns, const QString &policy, const QByteArray &subject);
// A subject is not empty and holds no brace (it is the key's hash tag).
bool isValidSubject(const QByteArray &subject);
// The inverse: false when `key` is not a bucket key of `ns` (an admin key, another namespace).
bool splitBucketKey(const QString &ns, const QByteArray &key, QString *policy, QByteArray *subject);

// What an error reply to one of the library's functions means for a dashboard: a server without
// the library (or with one too old to have the function) says so; anything else as Redis said it.
QString libraryCallProblem(const QString &error);

} // namespace sluice::model
