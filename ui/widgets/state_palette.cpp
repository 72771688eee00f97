// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/state_palette.h"

#include <QGuiApplication>
#include <QPalette>

#include <iterator>

namespace sluice::ui {

namespace {

struct Shades {
    QRgb lightText; // on a light window
    QRgb darkText;  // on a dark window
    QRgb lightFill;
    QRgb darkFill;
};

// In Tone's order. Text tones read at 4.5:1 or more on the window and on their fill, light or
// dark (WCAG AA for text); the chart tones at 3:1 or more (AA for graphics).
constexpr Shades shades[] = {
    {0xff137333, 0xff81c995, 0xffe6f4ea, 0xff1e3a2a}, // Ok
    {0xff8a4b00, 0xfffdd663, 0xfffef7e0, 0xff45381a}, // Warning
    {0xffc5221f, 0xfff28b82, 0xfffce8e6, 0xff4f2523}, // Error
    {0xff185abc, 0xff8ab4f8, 0xffe8f0fe, 0xff1f3352}, // Info
    {0xff5f6368, 0xff9aa0a6, 0xfff1f3f4, 0xff303134}, // Muted
    {0xff1e8e3e, 0xff81c995, 0xffe6f4ea, 0xff1e3a2a}, // Allowed
    {0xffd93025, 0xfff28b82, 0xfffce8e6, 0xff4f2523}, // Rejected
    {0xff1a73e8, 0xff8ab4f8, 0xffe8f0fe, 0xff1f3352}, // Level
};
static_assert(std::size(shades) == static_cast<size_t>(Tone::Level) + 1, "one row of shades per tone");

} // namespace

bool isDarkPalette()
{
    const QPalette palette = QGuiApplication::palette();
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

QColor toneColor(Tone tone)
{
    const Shades &shade = shades[static_cast<size_t>(tone)];
    return QColor::fromRgb(isDarkPalette() ? shade.darkText : shade.lightText);
}

QColor toneFill(Tone tone)
{
    const Shades &shade = shades[static_cast<size_t>(tone)];
    return QColor::fromRgb(isDarkPalette() ? shade.darkFill : shade.lightFill);
}

QString textStyle(Tone tone, bool bold)
{
    return QStringLiteral("color:%1;%2")
        .arg(toneColor(tone).name(), bold ? QStringLiteral(" font-weight:bold;") : QString());
}

QString bannerStyle(Tone tone)
{
    return QStringLiteral("background:%1; color:%2; padding:6px 10px; border:1px solid %2; border-radius:4px;")
        .arg(toneFill(tone).name(), toneColor(tone).name());
}

} // namespace sluice::ui
