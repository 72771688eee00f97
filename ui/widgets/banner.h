// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/widgets/state_palette.h"

#include <QLabel>

namespace sluice::ui {

// A paragraph that stands out in one of the palette's tones: drift, a warning before a publish, what a form
// will do. Every banner of the dashboard is one of these, so they look alike and follow a dark palette.
class Banner : public QLabel {
    Q_OBJECT
public:
    Banner(Tone tone, const QString &objectName, QWidget *parent);

    void setTone(Tone tone);
    Tone tone() const { return m_tone; }

private:
    Tone m_tone;
};

} // namespace sluice::ui
