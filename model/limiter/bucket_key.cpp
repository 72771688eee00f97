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

QByteArray spreadSubject(const QByteArray &subject, int bucket)
{
    return subject + '#' + QByteArray::number(bucket);
}

bool splitSpreadSubject(const QByteArray &spreadSubject, QByteArray *subject, int *bucket)
{
    const qsizetype mark = spreadSubject.lastIndexOf('#');
    const QByteArray digits = spreadSubject.mid(mark + 1);
    if (mark < 1 || digits.isEmpty() || digits.size() > 3 || (digits.size() > 1 && digits.startsWith('0')))
        return false;
    for (const char digit : digits) {
        if (digit < '0' || digit > '9')
            return false;
    }
    *subject = spreadSubject.left(mark);
    *bucket = digits.toInt();
    return true;
}

} // namespace sluice::model
