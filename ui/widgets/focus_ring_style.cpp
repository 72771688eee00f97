// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/focus_ring_style.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOption>

namespace sluice::ui {

namespace {

void drawRing(const QStyleOption &option, QPainter &painter)
{
    if (!(option.state & QStyle::State_HasFocus))
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(option.palette.color(QPalette::Highlight), 2));
    painter.drawRoundedRect(QRectF(option.rect).adjusted(1, 1, -1, -1), 3, 3);
    painter.restore();
}

} // namespace

FocusRingStyle::FocusRingStyle()
    : QProxyStyle(QApplication::style()->name())
{
}

void FocusRingStyle::drawControl(ControlElement element, const QStyleOption *option, QPainter *painter,
                                 const QWidget *widget) const
{
    QProxyStyle::drawControl(element, option, painter, widget);
    if (element == CE_PushButton || element == CE_CheckBox || element == CE_RadioButton)
        drawRing(*option, *painter);
}

void FocusRingStyle::drawComplexControl(ComplexControl control, const QStyleOptionComplex *option, QPainter *painter,
                                        const QWidget *widget) const
{
    QProxyStyle::drawComplexControl(control, option, painter, widget);
    const auto *combo = qstyleoption_cast<const QStyleOptionComboBox *>(option);
    if (control == CC_ToolButton || (control == CC_ComboBox && combo && !combo->editable))
        drawRing(*option, *painter);
}

} // namespace sluice::ui
