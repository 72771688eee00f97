#pragma once

#include <QByteArray>
#include <QString>

namespace sluice::model {

// The bucket key of one subject under one policy: `<ns>:<policy>:{<subject>}` (the subject is the
// Cluster hash tag).
QByteArray bucketKey(const QString &ns, const QString &policy, const QByteArray &subject);
// A subject is not empty and holds no brace (it is the key's hash tag).
bool isValidSubject(const QByteArray &subject);
// The inverse: false when `key` is not a bucket key of `ns` (an admin key, another namespace).
bool splitBucketKey(const QString &ns, const QByteArray &key, QString *policy, QByteArray *subject);

} // namespace sluice::model
