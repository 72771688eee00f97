// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>

namespace sluice::app {

// sluicectl's strings, all under the translation context "sluicectl": Ctl::tr("...").
struct Ctl {
    Q_DECLARE_TR_FUNCTIONS(sluicectl)
};

} // namespace sluice::app
