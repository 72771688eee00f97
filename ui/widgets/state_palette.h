// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

namespace sluice::ui {

// What a colour on screen means. Every state colour of the dashboard comes from here, so the same
// meaning has one colour everywhere and a dark theme keeps it legible.
enum class Tone {
    Ok,       // healthy, connected, current
    Warning,  // needs a look: no persistence, a linter note, a node down
    Error,    // failed, refused, drift, production
    Info,     // in progress, informative
    Muted,    // secondary text: hints, cancelled
    Allowed,  // decisions that passed (charts, sparklines)
    Rejected, // decisions that were refused
    Level,    // a bucket's level and the chart's zoom band
};

// The tone as text or a line colour, readable on the application palette's window colour.
QColor toneColor(Tone tone);
// A fill behind text of the tone (banners, diff rows): pale on a light palette, deep on a dark one.
QColor toneFill(Tone tone);
// Style sheets built from the two: "color:...;" (bold when asked), and a banner (ui/widgets/banner.h) with its
// fill and a border in the tone.
QString textStyle(Tone tone, bool bold = false);
QString bannerStyle(Tone tone);
// True when the application palette is dark (its window colour is darker than its text).
bool isDarkPalette();

} // namespace sluice::ui
