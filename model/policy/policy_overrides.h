// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace sluice::model {

struct Policy;
struct PolicyError;

// One subject's exception to a policy, from its "overrides": other limits ("partner-x" gets 1000 per
// window), "allow" (admitted without consuming) or "deny" (always rejected, retry_after_ms -3). The
// pattern is an exact subject, or every subject that starts with it (written with a trailing '*'; an
// exact subject that ends in '*' is written "\*"). The longest match wins; an exact subject beats a
// prefix of the same length.
struct SubjectOverride {
    enum class Kind { Limits, Allow, Deny };

    QByteArray pattern; // the subject, or the prefix without its '*', as bucket keys hold it
    bool prefix = false;
    Kind kind = Kind::Limits;
    qint64 limit = 0; // Limits: 0 keeps the policy's
    qint64 burst = 0; // Limits: 0 keeps the policy's

    // As the policy file writes it: "partner-x", "batch-*", "star\*".
    QString writtenPattern() const;
    // The same for a terminal or a table: control characters and invalid UTF-8 written %XX (subjectText()).
    QString printablePattern() const;
    bool matches(const QByteArray &subject) const;
    bool operator==(const SubjectOverride &other) const;
    bool operator<(const SubjectOverride &other) const;
};

namespace override_limits {
constexpr int maxPerPolicy = 10'000;
constexpr int maxPerNamespace = 100'000;
} // namespace override_limits

// retry_after_ms of a call rejected because a list denies its subject ("deny", not a wait).
constexpr qint64 retryDeniedMs = -3;

// The pattern of an override as written ("partner-x", "batch-*", "star\*"), kind Limits without limits;
// nullopt and *problem when it is neither a subject nor a subject's prefix.
std::optional<SubjectOverride> patternFromWritten(const QString &written, QString *problem);

// The override that decides `subject`, or nullptr. `overrides` sorted (as Policy keeps them).
const SubjectOverride *matchingOverride(const QVector<SubjectOverride> &overrides, const QByteArray &subject);
// The policy a Limits override makes of `policy` for its subjects: the limit and burst it names; a
// policy's burst equal to its limit (the default) follows an override's limit.
Policy overriddenPolicy(const Policy &policy, const SubjectOverride &override);

// Reads the JSON object of a policy's "overrides" (policy files and the stored field alike), sorted.
std::optional<QVector<SubjectOverride>> overridesFromJson(const QJsonValue &value, QString *problem);
QJsonObject overridesToJson(const QVector<SubjectOverride> &overrides);
// What is wrong with a policy's overrides, as errors of its field "overrides".
QVector<PolicyError> overrideProblems(const Policy &policy);
// Overrides over the 100,000 a namespace may hold, among policies meant to be stored together.
QVector<PolicyError> namespaceOverrideProblems(const QVector<Policy> &policies);

// One override as a review shows it: "partner-x: limit 1000, burst 2000", "abuser-7: deny".
QString overrideText(const SubjectOverride &override);
// The overrides that differ between two lists, as a review shows them on each side.
struct OverrideChanges {
    QString before;
    QString after;
    bool isEmpty() const { return before.isEmpty() && after.isEmpty(); }
};
OverrideChanges overrideChanges(const QVector<SubjectOverride> &before, const QVector<SubjectOverride> &after);

// A policy's overrides as one string the limiter library parses when it loads (a Lua table of 10,000
// entries would put every subject among the 262,143 constants Lua 5.1 allows one function): per override
// "<e|p><l|a|d><limit>,<burst>,<length>:<pattern>", the limit and burst those of the policy it makes.
QByteArray overridesLibraryText(const Policy &policy);
// One rule of that string.
QByteArray ruleLibraryText(const SubjectOverride &rule, qint64 limit, qint64 burst);

} // namespace sluice::model
