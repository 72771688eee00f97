// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QJsonObject>

#include <optional>

namespace sluice::model {

// A namespace's allow and deny lists: subjects every policy of the namespace admits without counting
// ("allow") or always rejects ("deny"), written as overrides are ("abuser-7", "internal-*"). They join
// each policy's own overrides when a call is decided: the longest pattern wins, an exact subject beats a
// prefix of its length, and for the same pattern the list beats the policy.
struct NamespaceLists {
    QVector<SubjectOverride> entries; // Allow and Deny only, sorted
    // Bookkeeping the store keeps beside them (version 0: never saved).
    qint64 version = 0;
    qint64 updatedAtMs = 0;
    QString updatedBy;
};

namespace list_limits {
constexpr int maxEntries = 10'000;
} // namespace list_limits

// Reads `{"abuser-7": "deny", "internal-*": "allow"}`, sorted; a limit is refused (only a policy has one).
std::optional<QVector<SubjectOverride>> listEntriesFromJson(const QJsonValue &value, QString *problem);
// What is wrong with the lists as a whole (too many entries), as errors of the field "lists".
QVector<PolicyError> listProblems(const QVector<SubjectOverride> &entries);
// The policy a call sees: its overrides with the lists' entries in them, a list's entry replacing the
// policy's override of the same pattern.
Policy withNamespaceLists(Policy policy, const QVector<SubjectOverride> &lists);

// The lists as one string the library parses when it loads (the format of overridesLibraryText()).
QByteArray listsLibraryText(const QVector<SubjectOverride> &entries);

// Reads rules from CSV text, one per line: `pattern,allow`, `pattern,deny` or, when `limits` is true,
// `pattern,limit[,burst]`; a pattern with a comma or a quote is double-quoted ("" for a quote). A first
// line whose second field is not a rule (a header) is skipped. Sorted; a later line for the same
// pattern replaces an earlier one. nullopt and *problem (naming the line) on anything else.
std::optional<QVector<SubjectOverride>> rulesFromCsv(const QByteArray &text, bool limits, QString *problem);
// The same from a file of at most 16 MiB; *problem names the file.
std::optional<QVector<SubjectOverride>> rulesFromCsvFile(const QString &path, bool limits, QString *problem);

} // namespace sluice::model
