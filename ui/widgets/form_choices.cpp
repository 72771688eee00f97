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
        if (bool ok = false; held(box).isValid()) {
            const int value = held(box).toInt(&ok);
            if (ok && value >= box->minimum() && value <= box->maximum())
                box->setValue(value);
        }
    for (QDoubleSpinBox *box : namedFields<QDoubleSpinBox>(form))
        if (bool ok = false; held(box).isValid()) {
            const double value = held(box).toDouble(&ok);
            if (ok && value >= box->minimum() && value <= box->maximum())
                box->setValue(value);
        }
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
