// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/policy_overrides.h"

#include "model/format/subject_text.h"
#include "model/limiter/bucket_key.h"
#include "model/policy/policy.h"

#include <QCoreApplication>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::PolicyOverrides)
};

// At most this many differing overrides are named in a review; the rest are counted.
constexpr int shownChanges = 12;

} // namespace

std::optional<SubjectOverride> patternFromWritten(const QString &written, QString *problem)
{
    SubjectOverride override;
    QByteArray bytes = written.toUtf8();
    if (bytes.endsWith("\\*")) {
        bytes.remove(bytes.size() - 2, 1); // "\*": an exact subject ending in '*'
    } else if (bytes.endsWith('*')) {
        bytes.chop(1);
        override.prefix = true;
    }
    override.pattern = bytes;
    const bool validPattern = override.prefix
        ? bytes.size() <= maxSubjectBytes && !bytes.contains('{') && !bytes.contains('}')
        : isValidSubject(bytes);
    if (!validPattern) {
        *problem = Text::tr("\"%1\" is not a subject (1 to %2 bytes without { or }), or such a subject's prefix "
                            "followed by *")
                       .arg(written.left(80))
                       .arg(maxSubjectBytes);
        return std::nullopt;
    }
    return override;
}

namespace {

// A whole number from 1 to 2^53 in a JSON value, or 0 with `problem` set.
qint64 wholeNumber(const QJsonValue &value, const QString &field, QString *problem)
{
    const double number = value.toDouble();
    if (!value.isDouble() || std::floor(number) != number || number < 1 || number > 9007199254740992.0) {
        *problem = Text::tr("%1 must be a positive whole number").arg(field);
        return 0;
    }
    return static_cast<qint64>(number);
}

std::optional<SubjectOverride> overrideFromJson(const QString &written, const QJsonValue &value, QString *problem)
{
    std::optional<SubjectOverride> override = patternFromWritten(written, problem);
    if (!override)
        return std::nullopt;
    const QString where = QStringLiteral("\"%1\": ").arg(written.left(80));
    if (value.isString()) {
        if (value.toString() == QLatin1String("allow"))
            override->kind = SubjectOverride::Kind::Allow;
        else if (value.toString() == QLatin1String("deny"))
            override->kind = SubjectOverride::Kind::Deny;
        else {
            *problem = where + Text::tr("must be \"allow\", \"deny\" or an object of limit and burst");
            return std::nullopt;
        }
        return override;
    }
    const QJsonObject limits = value.toObject();
    if (!value.isObject() || limits.isEmpty()) {
        *problem = where + Text::tr("must be \"allow\", \"deny\" or an object of limit and burst");
        return std::nullopt;
    }
    for (auto it = limits.begin(); it != limits.end(); ++it) {
        qint64 *target = it.key() == QLatin1String("limit") ? &override->limit
            : it.key() == QLatin1String("burst")            ? &override->burst
                                                            : nullptr;
        if (!target) {
            *problem = where + Text::tr("\"%1\" is not an override field (known: limit, burst)").arg(it.key().left(40));
            return std::nullopt;
        }
        QString numberProblem;
        *target = wholeNumber(it.value(), it.key(), &numberProblem);
        if (*target == 0) {
            *problem = where + numberProblem;
            return std::nullopt;
        }
    }
    return override;
}

} // namespace

QString SubjectOverride::writtenPattern() const
{
    const QString text = QString::fromUtf8(pattern);
    if (prefix)
        return text + QLatin1Char('*');
    return text.endsWith(QLatin1Char('*')) ? text.chopped(1) + QStringLiteral("\\*") : text;
}

QString SubjectOverride::printablePattern() const
{
    const QString text = subjectText(pattern);
    if (prefix)
        return text + QLatin1Char('*');
    return text.endsWith(QLatin1Char('*')) ? text.chopped(1) + QStringLiteral("\\*") : text;
}

bool SubjectOverride::matches(const QByteArray &subject) const
{
    return prefix ? subject.startsWith(pattern) : subject == pattern;
}

bool SubjectOverride::operator==(const SubjectOverride &other) const
{
    return pattern == other.pattern && prefix == other.prefix && kind == other.kind && limit == other.limit
        && burst == other.burst;
}

bool SubjectOverride::operator<(const SubjectOverride &other) const
{
    return pattern != other.pattern ? pattern < other.pattern : prefix < other.prefix;
}

const SubjectOverride *matchingOverride(const QVector<SubjectOverride> &overrides, const QByteArray &subject)
{
    if (overrides.isEmpty())
        return nullptr;
    const auto find = [&](const QByteArray &pattern, bool prefix) -> const SubjectOverride * {
        SubjectOverride probe;
        probe.pattern = pattern;
        probe.prefix = prefix;
        const auto found = std::lower_bound(overrides.cbegin(), overrides.cend(), probe);
        return found != overrides.cend() && found->pattern == pattern && found->prefix == prefix ? &*found : nullptr;
    };
    if (const SubjectOverride *exact = find(subject, false))
        return exact;
    for (qsizetype length = subject.size(); length >= 0; --length)
        if (const SubjectOverride *prefix = find(subject.left(length), true))
            return prefix;
    return nullptr;
}

Policy overriddenPolicy(const Policy &policy, const SubjectOverride &override)
{
    Policy overridden = policy;
    if (override.limit > 0) {
        // A burst that is the limit (the default) follows the override's limit; another stays.
        if (policy.effectiveBurst() == policy.limit)
            overridden.burst = 0;
        overridden.limit = override.limit;
    }
    if (override.burst > 0)
        overridden.burst = override.burst;
    overridden.overrides.clear();
    return overridden;
}

std::optional<QVector<SubjectOverride>> overridesFromJson(const QJsonValue &value, QString *problem)
{
    if (!value.isObject()) {
        *problem = Text::tr("must be an object of subjects (or prefixes ending in *) and their limits");
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    QVector<SubjectOverride> overrides;
    overrides.reserve(object.size());
    for (auto it = object.begin(); it != object.end(); ++it) {
        std::optional<SubjectOverride> override = overrideFromJson(it.key(), it.value(), problem);
        if (!override)
            return std::nullopt;
        overrides.append(*override);
    }
    // Each written key names one pattern, so sorted they are distinct.
    std::sort(overrides.begin(), overrides.end());
    return overrides;
}

QJsonObject overridesToJson(const QVector<SubjectOverride> &overrides)
{
    QJsonObject object;
    for (const SubjectOverride &override : overrides) {
        QJsonValue value;
        switch (override.kind) {
        case SubjectOverride::Kind::Allow: value = QStringLiteral("allow"); break;
        case SubjectOverride::Kind::Deny: value = QStringLiteral("deny"); break;
        case SubjectOverride::Kind::Limits: {
            QJsonObject limits;
            if (override.limit > 0)
                limits.insert(QStringLiteral("limit"), static_cast<double>(override.limit));
            if (override.burst > 0)
                limits.insert(QStringLiteral("burst"), static_cast<double>(override.burst));
            value = limits;
            break;
        }
        }
        object.insert(override.writtenPattern(), value);
    }
    return object;
}

QVector<PolicyError> overrideProblems(const Policy &policy)
{
    QVector<PolicyError> errors;
    const auto fail = [&](const QString &message) {
        errors.append({policy.name, QStringLiteral("overrides"), message});
    };
    if (policy.overrides.size() > override_limits::maxPerPolicy) {
        fail(Text::tr("holds %1 overrides; a policy may hold at most %2")
                 .arg(policy.overrides.size())
                 .arg(override_limits::maxPerPolicy));
        return errors;
    }
    for (const SubjectOverride &override : policy.overrides) {
        if (override.kind != SubjectOverride::Kind::Limits)
            continue;
        const QString where = QStringLiteral("\"%1\": ").arg(override.writtenPattern().left(80));
        if (override.burst > 0 && !algorithmUsesBurst(policy.algorithm)) {
            fail(where + Text::tr("burst is not used by %1").arg(algorithmName(policy.algorithm)));
            continue;
        }
        // The policy's own bounds, for the policy this override makes.
        for (const PolicyError &error : validatePolicy(overriddenPolicy(policy, override)))
            fail(where + error.field + QLatin1Char(' ') + error.message);
        if (errors.size() >= shownChanges)
            break;
    }
    return errors;
}

QVector<PolicyError> namespaceOverrideProblems(const QVector<Policy> &policies)
{
    qsizetype total = 0;
    for (const Policy &policy : policies)
        total += policy.overrides.size();
    if (total <= override_limits::maxPerNamespace)
        return {};
    return {{QString(), QStringLiteral("overrides"),
             Text::tr("the policies hold %1 overrides together; a namespace may hold at most %2")
                 .arg(total)
                 .arg(override_limits::maxPerNamespace)}};
}

QString overrideText(const SubjectOverride &override)
{
    const QString pattern = override.printablePattern();
    switch (override.kind) {
    case SubjectOverride::Kind::Allow: return Text::tr("%1: allow").arg(pattern);
    case SubjectOverride::Kind::Deny: return Text::tr("%1: deny").arg(pattern);
    case SubjectOverride::Kind::Limits: break;
    }
    QStringList limits;
    if (override.limit > 0)
        limits << Text::tr("limit %1").arg(override.limit);
    if (override.burst > 0)
        limits << Text::tr("burst %1").arg(override.burst);
    return pattern + QStringLiteral(": ") + limits.join(QStringLiteral(", "));
}

OverrideChanges overrideChanges(const QVector<SubjectOverride> &before, const QVector<SubjectOverride> &after)
{
    QStringList removed, added;
    int differing = 0;
    // Both sorted: one merge finds what each side holds that the other does not hold the same.
    auto b = before.cbegin(), a = after.cbegin();
    const auto note = [&](QStringList &side, const SubjectOverride &override) {
        if (++differing <= shownChanges)
            side << overrideText(override);
    };
    while (b != before.cend() || a != after.cend()) {
        if (a == after.cend() || (b != before.cend() && *b < *a)) {
            note(removed, *b++);
        } else if (b == before.cend() || *a < *b) {
            note(added, *a++);
        } else {
            if (!(*a == *b)) {
                note(removed, *b);
                note(added, *a);
            }
            ++a;
            ++b;
        }
    }
    const QString more = differing > shownChanges
        ? Text::tr(" (and %n more change(s))", nullptr, differing - shownChanges)
        : QString();
    OverrideChanges changes;
    if (!removed.isEmpty())
        changes.before = removed.join(QStringLiteral("; ")) + more;
    if (!added.isEmpty())
        changes.after = added.join(QStringLiteral("; ")) + more;
    return changes;
}

QByteArray ruleLibraryText(const SubjectOverride &rule, qint64 limit, qint64 burst)
{
    const char kind = rule.kind == SubjectOverride::Kind::Allow ? 'a'
        : rule.kind == SubjectOverride::Kind::Deny              ? 'd'
                                                                : 'l';
    return QByteArray(1, rule.prefix ? 'p' : 'e') + kind + QByteArray::number(limit) + ',' + QByteArray::number(burst)
        + ',' + QByteArray::number(rule.pattern.size()) + ':' + rule.pattern;
}

QByteArray overridesLibraryText(const Policy &policy)
{
    QByteArray text;
    for (const SubjectOverride &override : policy.overrides) {
        const Policy overridden = overriddenPolicy(policy, override);
        text += ruleLibraryText(override, overridden.limit, overridden.effectiveBurst());
    }
    return text;
}

} // namespace sluice::model
