// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/whole_file.h"

#include <QCoreApplication>
#include <QSaveFile>

namespace sluice::model {

std::optional<Failure> writeWholeFile(const QString &path, const QByteArray &content,
                                      QFileDevice::Permissions permissions)
{
    QSaveFile file(path);
    // Unbuffered, so a failed write (no space, a file size limit) shows at write(): Qt 6.4 commits a
    // buffered QSaveFile whose final flush failed, and an empty file replaces the target.
    if (file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)
        && (permissions == QFileDevice::Permissions() || file.setPermissions(permissions))
        && file.write(content) == content.size() && file.commit())
        return std::nullopt;
    const QString reason = file.errorString();
    file.cancelWriting();
    return Failure::serverError(
        QCoreApplication::translate("sluice::model::writeWholeFile", "cannot write %1: %2").arg(path, reason));
}

} // namespace sluice::model
