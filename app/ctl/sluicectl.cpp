// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl: what the GUI can do, for operators who script. Errors go to stderr and the exit code
// says what kind of failure it was (app/common/exit_codes.h). The commands are the sluice_ctl library.

#include "app/common/translations.h"
#include "app/ctl/ctl_runner.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("sluicectl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SLUICE_VERSION));
    sluice::app::installTranslations(&app);
    QTextStream out(stdout);
    QTextStream err(stderr);
    return sluice::app::runSluicectl(QCoreApplication::arguments(), out, err);
}
