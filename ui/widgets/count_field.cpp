// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/count_field.h"

#include <QSpinBox>

namespace sluice::ui {

QSpinBox *countField(QWidget *parent, const QString &objectName, int minimum, int maximum, int value,
                     const QString &suffix)
{
    auto *box = new QSpinBox(parent);
    box->setObjectName(objectName);
    box->setRange(minimum, maximum);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(true);
    return box;
}

} // namespace sluice::ui
