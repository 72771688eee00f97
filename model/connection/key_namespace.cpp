// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/key_namespace.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace sluice::model {

std::optional<Failure> namespaceProblem(const QString &ns)
{
    // Anchored as a whole: "$" alone would also let a trailing newline through.
    static const QRegularExpression rule(QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.-]{1,64}")));
    if (rule.match(ns).hasMatch())
        return std::nullopt;
    return Failure::invalid(QCoreApplication::translate(
        "sluice::model::ConnectionProfile", "the namespace must be 1 to 64 letters, digits, '_', '.' or '-'"));
}

} // namespace sluice::model
