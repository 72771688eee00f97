// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProxyStyle>

namespace sluice::ui {

// The platform's style with a focus ring it can be seen by: some styles (Fusion, as Qt uses it on most
// Linux desktops) mark a focused button with a faint outline, so a keyboard user cannot tell which button
// Space would press. Buttons, check boxes, radio buttons, tool buttons and drop-downs with focus get a
// 2 px ring in the palette's highlight colour, in light and dark palettes alike.
class FocusRingStyle : public QProxyStyle {
    Q_OBJECT
public:
    // Takes the application's current style as its base.
    FocusRingStyle();

    void drawControl(ControlElement element, const QStyleOption *option, QPainter *painter,
                     const QWidget *widget = nullptr) const override;
    void drawComplexControl(ComplexControl control, const QStyleOptionComplex *option, QPainter *painter,
                            const QWidget *widget = nullptr) const override;
};

} // namespace sluice::ui
