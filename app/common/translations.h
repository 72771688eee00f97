// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCoreApplication;

namespace sluice::app {

// Installs Sluice's catalogue for the system's language (QLocale()) when one is built in (:/i18n/sluice_*.qm;
// English only today), and Qt's own for the standard dialogs' buttons when the system has it. True when
// Sluice's own was found; without one every string shows in English, as written.
bool installTranslations(QCoreApplication *app);

} // namespace sluice::app
