// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <QByteArray>
#include <QFileDevice>
#include <QString>

namespace sluice::model {

// Writes `content` to `path` whole or not at all: through a temporary file renamed over the target
// once everything is on disk, so a full disk, a missing folder or a crash never leaves half a file
// (or an emptied old one) behind. The failure names the path and the reason. Non-empty
// `permissions` are the file's from its first byte on (the umask's otherwise).
std::optional<Failure> writeWholeFile(const QString &path, const QByteArray &content,
                                      QFileDevice::Permissions permissions = {});

} // namespace sluice::model
