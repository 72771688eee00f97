// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/connection/key_namespace.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace sluice::model {

std::optional<Failure> namespaceProblem(const QString &ns)
{
    // Anchored as a whole: "$" alone would also let a trailing newline through.
    static const QRegularExpression rule(QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9_.-]{1,64}")));
    if (!rule.match(ns).hasMatch())
        return Failure::invalid(QCoreApplication::translate(
            "sluice::model::ConnectionProfile", "the namespace must be 1 to 64 letters, digits, '_', '.' or '-'"));
    // "<ns>-fire:" is namespace <ns>'s test-fire key space, which its operator role may write: a namespace of
    // that name would have its buckets there.
    if (ns.endsWith(QLatin1String("-fire"), Qt::CaseInsensitive))
        return Failure::invalid(QCoreApplication::translate("sluice::model::ConnectionProfile",
                                                            "a namespace may not end in \"-fire\": \"%1\" holds "
                                                            "the test-fire keys of namespace \"%2\"")
                                    .arg(ns, ns.chopped(5)));
    return std::nullopt;
}

} // namespace sluice::model
