// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/policy/operator_identity.h"

#include <QSysInfo>

#include <pwd.h>
#include <unistd.h>

namespace sluice::model {

QString operatorIdentity(const QString &tool)
{
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty()) {
        const passwd *account = getpwuid(getuid());
        user = account ? QString::fromLocal8Bit(account->pw_name) : QStringLiteral("uid %1").arg(getuid());
    }
    return QStringLiteral("%1@%2 (%3)").arg(user, QSysInfo::machineHostName(), tool);
}

} // namespace sluice::model
