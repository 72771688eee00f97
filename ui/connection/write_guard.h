// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"

#include <functional>

class QWidget;

namespace sluice::ui {

// The one gate every write from the dashboard passes: a read-only profile refuses it (with the
// reason), a production one asks first in a window-modal box, others go ahead at once.
// `proceed` runs only when the write may happen.
void guardWrite(QWidget *parent, const model::ConnectionProfile &profile, const QString &what,
                std::function<void()> proceed);
// The same gate for a write that always asks first, whatever the profile (a destructive one-off
// such as resetting a bucket): `detail` says what will happen; a production profile says so too.
void confirmWrite(QWidget *parent, const model::ConnectionProfile &profile, const QString &what, const QString &detail,
                  std::function<void()> proceed);

} // namespace sluice::ui
