// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/bucket_key.h"

#include "model/policy/policy.h"

namespace sluice::model {

QByteArray bucketKey(const QString &ns, const QString &policy, const QByteArray &subject)
{
    return ns.toUtf8() + ':' + policy.toUtf8() + ":{" + subject + '}';
}

bool isValidSubject(const QByteArray &subject)
{
    return !subject.isEmpty() && subject.size() <= maxSubjectBytes && !subject.contains('{') && !subject.contains('}');
}

bool splitBucketKey(const QString &ns, const QByteArray &key, QString *policy, QByteArray *subject)
{
    const QByteArray prefix = ns.toUtf8() + ':';
    const qsizetype open = key.indexOf(":{", prefix.size());
    if (!key.startsWith(prefix) || open < 0 || !key.endsWith('}'))
        return false;
    *policy = QString::fromUtf8(key.mid(prefix.size(), open - prefix.size()));
    *subject = key.mid(open + 2, key.size() - open - 3);
    return isValidPolicyName(*policy) && isValidSubject(*subject);
}

} // namespace sluice::model
