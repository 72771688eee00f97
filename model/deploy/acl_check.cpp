// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/deploy/acl_check.h"

#include "model/deploy/acl_roles.h"

#include <QList>

namespace sluice::model {

namespace {

// Where a character class `[...]` starting at `open` ends (the index after `]`), and whether it holds `c`.
// An unterminated class runs to the end of the pattern, as Redis's stringmatchlen treats it.
qsizetype matchClass(const QByteArray &pattern, qsizetype open, char c, bool *holds)
{
    qsizetype i = open + 1;
    const bool negated = i < pattern.size() && pattern.at(i) == '^';
    if (negated)
        ++i;
    bool found = false;
    while (i < pattern.size() && pattern.at(i) != ']') {
        if (pattern.at(i) == '\\' && i + 1 < pattern.size()) {
            found = found || pattern.at(i + 1) == c;
            i += 2;
        } else if (i + 2 < pattern.size() && pattern.at(i + 1) == '-' && pattern.at(i + 2) != ']') {
            char from = pattern.at(i);
            char to = pattern.at(i + 2);
            if (from > to)
                std::swap(from, to);
            found = found || (c >= from && c <= to);
            i += 3;
        } else {
            found = found || pattern.at(i) == c;
            ++i;
        }
    }
    *holds = found != negated;
    return i < pattern.size() ? i + 1 : i;
}

bool reaches(const QByteArray &pattern, qsizetype p, const QByteArray &prefix, qsizetype k)
{
    while (true) {
        if (k == prefix.size())
            return true; // the prefix is spent: what is left of the pattern can match some ending
        if (p == pattern.size())
            return false; // the key would end inside the prefix
        const char c = pattern.at(p);
        if (c == '*') {
            while (p < pattern.size() && pattern.at(p) == '*')
                ++p;
            if (p == pattern.size())
                return true;
            for (qsizetype skip = k; skip <= prefix.size(); ++skip)
                if (reaches(pattern, p, prefix, skip))
                    return true;
            return false;
        }
        if (c == '?') {
            ++p;
            ++k;
        } else if (c == '[') {
            bool holds = false;
            p = matchClass(pattern, p, prefix.at(k), &holds);
            if (!holds)
                return false;
            ++k;
        } else {
            const bool escaped = c == '\\' && p + 1 < pattern.size();
            if (pattern.at(escaped ? p + 1 : p) != prefix.at(k))
                return false;
            p += escaped ? 2 : 1;
            ++k;
        }
    }
}

// The key patterns of one ACL LIST rule, or none: ~p, %R~p, %W~p, %RW~p, and selectors' "(~p" and "~p)".
QByteArray keyPattern(QByteArray rule)
{
    if (rule.startsWith('('))
        rule.remove(0, 1);
    if (rule.endsWith(')'))
        rule.chop(1);
    if (rule.startsWith('%')) {
        const qsizetype tilde = rule.indexOf('~');
        return tilde > 0 ? rule.mid(tilde + 1) : QByteArray();
    }
    return rule.startsWith('~') ? rule.mid(1) : QByteArray();
}

} // namespace

QStringList namespaceKeyPrefixes(const QString &ns)
{
    // The operator's patterns are the whole of the namespace's key space (buckets, admin keys, test fire).
    QStringList prefixes;
    for (const QString &rule : aclRules(AclRole::Operator, ns))
        if (rule.startsWith(QLatin1Char('~')) && rule.endsWith(QLatin1Char('*')))
            prefixes << rule.mid(1).chopped(1);
    return prefixes;
}

bool globReachesPrefix(const QByteArray &pattern, const QByteArray &prefix)
{
    return reaches(pattern, 0, prefix, 0);
}

AclUserReach judgeAclUser(const QByteArray &aclListLine, const QStringList &namespaces)
{
    const QList<QByteArray> words = aclListLine.split(' ');
    AclUserReach reach;
    reach.user = QString::fromUtf8(words.value(1));
    QList<QByteArray> patterns;
    for (qsizetype i = 2; i < words.size(); ++i) {
        if (words.at(i) == "allkeys")
            reach.allKeys = true;
        const QByteArray pattern = keyPattern(words.at(i));
        if (pattern.isEmpty())
            continue;
        if (pattern == "*")
            reach.allKeys = true;
        patterns << pattern;
    }
    for (const QString &ns : namespaces) {
        for (const QByteArray &pattern : patterns) {
            const QStringList prefixes = namespaceKeyPrefixes(ns);
            const auto reached = std::find_if(prefixes.cbegin(), prefixes.cend(), [&](const QString &prefix) {
                return globReachesPrefix(pattern, prefix.toUtf8());
            });
            if (reached == prefixes.cend())
                continue;
            reach.namespaces << ns;
            reach.reasons << QStringLiteral("~%1 reaches %2*").arg(QString::fromUtf8(pattern), *reached);
            break;
        }
    }
    return reach;
}

} // namespace sluice::model
