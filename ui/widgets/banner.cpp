// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/banner.h"

namespace sluice::ui {

Banner::Banner(Tone tone, const QString &objectName, QWidget *parent)
    : QLabel(parent)
    , m_tone(tone)
{
    setObjectName(objectName);
    setWordWrap(true);
    setStyleSheet(bannerStyle(tone));
}

void Banner::setTone(Tone tone)
{
    m_tone = tone;
    setStyleSheet(bannerStyle(tone));
}

} // namespace sluice::ui
