// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace sluice::model {

// The longest subject of a bucket key, in bytes as the key holds it (escaped by its caller, see
// docs/services.md): the limiter library refuses a longer one, so it bounds what the library keeps.
constexpr qsizetype maxSubjectBytes = 512;

// The bucket key of one subject under one policy: `<ns>:<policy>:{<subject>}` (the subject is the
// Cluster hash tag). Build it only from a subject that isValidSubject() accepts.
QByteArray bucketKey(const QString &ns, const QString &policy, const QByteArray &subject);
// A subject is not empty, holds no brace (it is the key's hash tag) and has at most maxSubjectBytes.
bool isValidSubject(const QByteArray &subject);
// The inverse: false when `key` is not a bucket key of `ns` (an admin key, another namespace).
bool splitBucketKey(const QString &ns, const QByteArray &key, QString *policy, QByteArray *subject);

// A spread policy's (Policy::spread) subject names its bucket too: `<subject>#<i>`, i from 0 to spread - 1
// written without leading zeros, so the key is `<ns>:<policy>:{<subject>#<i>}` and each bucket has its slot.
QByteArray spreadSubject(const QByteArray &subject, int bucket);
// The inverse: false when `spreadSubject` names no bucket (no `#<i>` after a non-empty subject).
bool splitSpreadSubject(const QByteArray &spreadSubject, QByteArray *subject, int *bucket);

} // namespace sluice::model
