// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QString>

namespace sluice::app {

// sluicectl's strings, all under the translation context "sluicectl".
inline QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

} // namespace sluice::app
