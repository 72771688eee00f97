// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/form_choices.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

namespace sluice::ui {

namespace {

// The fields a form's choices are read from: named, and not a part of another field (a spin box's or an
// editable combo box's own line edit has no name of its own).
template <typename Field> QList<Field *> namedFields(const QWidget *form)
{
    QList<Field *> fields;
    for (Field *field : form->findChildren<Field *>())
        if (!field->objectName().isEmpty() && !field->objectName().startsWith(QLatin1String("qt_")))
            fields << field;
    return fields;
}

// A spin box's kept value, when it is a number the box can hold (a whole one for a QSpinBox) within its range.
template <typename Box> void restoreNumber(Box *box, const QVariant &held)
{
    using Value = decltype(box->value());
    bool ok = false;
    const double number = held.toDouble(&ok);
    if (ok && number >= box->minimum() && number <= box->maximum() && number == double(Value(number)))
        box->setValue(Value(number));
}

} // namespace

QVariantMap formChoices(const QWidget *form)
{
    QVariantMap choices;
    for (const QSpinBox *box : namedFields<QSpinBox>(form))
        choices.insert(box->objectName(), box->value());
    for (const QDoubleSpinBox *box : namedFields<QDoubleSpinBox>(form))
        choices.insert(box->objectName(), box->value());
    for (const QCheckBox *box : namedFields<QCheckBox>(form))
        choices.insert(box->objectName(), box->isChecked());
    for (const QComboBox *box : namedFields<QComboBox>(form))
        choices.insert(box->objectName(), box->currentText());
    for (const QLineEdit *edit : namedFields<QLineEdit>(form))
        choices.insert(edit->objectName(), edit->text());
    return choices;
}

void restoreFormChoices(QWidget *form, const QVariantMap &choices)
{
    const auto held = [&choices](const QWidget *field) { return choices.value(field->objectName()); };
    for (QSpinBox *box : namedFields<QSpinBox>(form))
        restoreNumber(box, held(box));
    for (QDoubleSpinBox *box : namedFields<QDoubleSpinBox>(form))
        restoreNumber(box, held(box));
    for (QCheckBox *box : namedFields<QCheckBox>(form))
        if (held(box).isValid())
            box->setChecked(held(box).toBool());
    for (QComboBox *box : namedFields<QComboBox>(form))
        if (const int index = box->findText(held(box).toString()); held(box).isValid() && index >= 0)
            box->setCurrentIndex(index);
    for (QLineEdit *edit : namedFields<QLineEdit>(form))
        if (held(edit).isValid())
            edit->setText(held(edit).toString());
}

} // namespace sluice::ui
