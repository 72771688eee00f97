#include "ui/state_palette.h"

#include <QGuiApplication>
#include <QPalette>

namespace sluice::ui {

namespace {

struct Shades {
    QRgb lightText;  // on a light window
    QRgb darkText;   // on a dark window
    QRgb lightFill;
    QRgb darkFill;
};

// Light shades are the ones the dashboard was drawn with; dark ones keep the hue at a contrast of
// at least 4.5:1 on a dark grey window.
Shades shadesOf(Tone tone)
{
    switch (tone) {
    case Tone::Ok:
        return {0xff188038, 0xff81c995, 0xffe6f4ea, 0xff1e3a2a};
    case Tone::Warning:
        return {0xffb06000, 0xfffdd663, 0xfffef7e0, 0xff45381a};
    case Tone::Error:
        return {0xffc5221f, 0xfff28b82, 0xfffce8e6, 0xff4f2523};
    case Tone::Info:
        return {0xff1a73e8, 0xff8ab4f8, 0xffe8f0fe, 0xff1f3352};
    case Tone::Muted:
        return {0xff5f6368, 0xff9aa0a6, 0xfff1f3f4, 0xff303134};
    case Tone::Allowed:
        return {0xff1e8e3e, 0xff81c995, 0xffe6f4ea, 0xff1e3a2a};
    case Tone::Rejected:
        return {0xffd93025, 0xfff28b82, 0xfffce8e6, 0xff4f2523};
    case Tone::Level:
        return {0xff1a73e8, 0xff8ab4f8, 0xffe8f0fe, 0xff1f3352};
    }
    return {0xff000000, 0xffffffff, 0xffffffff, 0xff000000};
}

} // namespace

bool isDarkPalette()
{
    const QPalette palette = QGuiApplication::palette();
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

QColor toneColor(Tone tone)
{
    const Shades shades = shadesOf(tone);
    return QColor::fromRgb(isDarkPalette() ? shades.darkText : shades.lightText);
}

QColor toneFill(Tone tone)
{
    const Shades shades = shadesOf(tone);
    return QColor::fromRgb(isDarkPalette() ? shades.darkFill : shades.lightFill);
}

QString textStyle(Tone tone, bool bold)
{
    return QStringLiteral("color:%1;%2").arg(toneColor(tone).name(), bold ? QStringLiteral(" font-weight:bold;") : QString());
}

QString bannerStyle(Tone tone)
{
    return QStringLiteral("background:%1; color:%2; padding:6px 10px; border-radius:4px;")
        .arg(toneFill(tone).name(), toneColor(tone).name());
}

} // namespace sluice::ui
