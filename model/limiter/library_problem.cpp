// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/library_problem.h"

#include <QCoreApplication>

namespace sluice::model {

QString libraryCallProblem(const QString &error)
{
    if (error.contains(QLatin1String("Function not found")))
        return QCoreApplication::translate("sluice::model", "no limiter library (publish it first)");
    return error;
}

} // namespace sluice::model
