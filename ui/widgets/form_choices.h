// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVariantMap>

class QWidget;

namespace sluice::ui {

// A form's choices, by the object names of its fields: spin boxes, check boxes, line edits and combo boxes
// (by their text), to keep them across a connection switch and a restart.
QVariantMap formChoices(const QWidget *form);
// Sets each named field the map holds; a field the form no longer has, a value out of its range or a combo
// box entry it does not list (yet) is left as it is.
void restoreFormChoices(QWidget *form, const QVariantMap &choices);

} // namespace sluice::ui
