// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/namespace_lists.h"

#include <QCoreApplication>
#include <QFile>
#include <QMap>

#include <algorithm>
#include <utility>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::NamespaceLists)
};

// The fields of one CSV line; nullopt when a quote is not closed.
std::optional<QStringList> csvFields(const QString &line)
{
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line.at(i + 1) == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"') && field.isEmpty()) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            fields << field;
            field.clear();
        } else {
            field += c;
        }
    }
    if (quoted)
        return std::nullopt;
    fields << field;
    return fields;
}

// A positive whole number of at most a limit's bound, or 0.
qint64 csvNumber(const QString &text)
{
    bool ok = false;
    const qint64 number = text.trimmed().toLongLong(&ok);
    return ok && number >= 1 && number <= policy_limits::maxLimit ? number : 0;
}

// A CSV file larger than this is refused rather than read (10,000 rules take far less).
constexpr qint64 maxCsvBytes = 16 * 1024 * 1024;

} // namespace

std::optional<QVector<SubjectOverride>> listEntriesFromJson(const QJsonValue &value, QString *problem)
{
    std::optional<QVector<SubjectOverride>> entries = overridesFromJson(value, problem);
    if (!entries)
        return std::nullopt;
    for (const SubjectOverride &entry : *entries) {
        if (entry.kind == SubjectOverride::Kind::Limits) {
            *problem = Text::tr("\"%1\": a list holds \"allow\" or \"deny\"; only a policy's override has limits")
                           .arg(entry.writtenPattern().left(80));
            return std::nullopt;
        }
    }
    return entries;
}

QVector<PolicyError> listProblems(const QVector<SubjectOverride> &entries)
{
    if (entries.size() <= list_limits::maxEntries)
        return {};
    return {{QString(), QStringLiteral("lists"),
             Text::tr("hold %1 entries; a namespace's lists may hold at most %2")
                 .arg(entries.size())
                 .arg(list_limits::maxEntries)}};
}

Policy withNamespaceLists(Policy policy, const QVector<SubjectOverride> &lists)
{
    if (lists.isEmpty())
        return policy;
    QVector<SubjectOverride> merged;
    merged.reserve(policy.overrides.size() + lists.size());
    // Both sorted by pattern: a merge, where the list's entry stands for a pattern both hold.
    auto own = policy.overrides.cbegin();
    auto listed = lists.cbegin();
    while (own != policy.overrides.cend() || listed != lists.cend()) {
        if (listed == lists.cend() || (own != policy.overrides.cend() && *own < *listed)) {
            merged.append(*own++);
        } else {
            if (own != policy.overrides.cend() && !(*listed < *own))
                ++own; // the same pattern: the list's
            merged.append(*listed++);
        }
    }
    policy.overrides = merged;
    return policy;
}

QByteArray listsLibraryText(const QVector<SubjectOverride> &entries)
{
    QByteArray text;
    for (const SubjectOverride &entry : entries)
        text += ruleLibraryText(entry, 0, 0);
    return text;
}

std::optional<QVector<SubjectOverride>> rulesFromCsv(const QByteArray &text, bool limits, QString *problem)
{
    QMap<QPair<QByteArray, bool>, SubjectOverride> rules;
    const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
    const QString expected
        = limits ? Text::tr("allow, deny, or a limit and an optional burst") : Text::tr("allow or deny");
    bool firstLine = true;
    for (qsizetype number = 1; number <= lines.size(); ++number) {
        QString line = lines.at(number - 1);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        const bool header = std::exchange(firstLine, false);
        const auto fail = [&](const QString &what) {
            *problem = Text::tr("line %1: %2").arg(number).arg(what);
            return std::nullopt;
        };
        const std::optional<QStringList> fields = csvFields(line);
        if (!fields)
            return fail(Text::tr("a quote is not closed"));
        if (fields->size() < 2)
            return fail(Text::tr("expected a subject or prefix, then %1").arg(expected));
        std::optional<SubjectOverride> rule = patternFromWritten(fields->at(0), problem);
        const QString value = fields->at(1).trimmed();
        if (value == QLatin1String("allow") || value == QLatin1String("deny")) {
            if (fields->size() > 2)
                return fail(Text::tr("%1 takes no limit").arg(value));
            if (rule)
                rule->kind
                    = value == QLatin1String("allow") ? SubjectOverride::Kind::Allow : SubjectOverride::Kind::Deny;
        } else if (limits && csvNumber(value) > 0 && fields->size() <= 3) {
            if (rule) {
                rule->limit = csvNumber(value);
                if (fields->size() == 3 && (rule->burst = csvNumber(fields->at(2))) == 0)
                    return fail(Text::tr("the burst must be a whole number from 1 to %1").arg(policy_limits::maxBurst));
            }
        } else {
            if (header)
                continue;
            return fail(Text::tr("\"%1\" is not %2").arg(value.left(40), expected));
        }
        if (!rule)
            return fail(*problem);
        rules.insert({rule->pattern, rule->prefix}, *rule);
    }
    QVector<SubjectOverride> sorted(rules.cbegin(), rules.cend());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

std::optional<QVector<SubjectOverride>> rulesFromCsvFile(const QString &path, bool limits, QString *problem)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = Text::tr("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray text = file.read(maxCsvBytes + 1);
    if (text.size() > maxCsvBytes) {
        *problem = Text::tr("%1 is larger than %2 MiB").arg(path).arg(maxCsvBytes >> 20);
        return std::nullopt;
    }
    QString csvProblem;
    std::optional<QVector<SubjectOverride>> rules = rulesFromCsv(text, limits, &csvProblem);
    if (!rules)
        *problem = QStringLiteral("%1: %2").arg(path, csvProblem);
    return rules;
}

} // namespace sluice::model
