// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QSpinBox;
class QWidget;

namespace sluice::ui {

// A spin box for a whole number of things (calls, ms, connections): named for tests, with its
// range, starting value, unit suffix and thousands separators.
QSpinBox *countField(QWidget *parent, const QString &objectName, int minimum, int maximum, int value,
                     const QString &suffix = {});

} // namespace sluice::ui
