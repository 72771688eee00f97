// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/failure.h"

#include <QByteArray>
#include <QFileDevice>
#include <QString>

#include <optional>

namespace sluice::model {

// The files Sluice writes, reads back or sweeps itself (exports, CSVs and PNGs, the rate history, the
// sandbox's folders) go through here, and only here: none is reached through a symbolic link that Sluice
// did not make, only regular files are written or read, and what is read is bounded. A name another local
// user planted (a link to one of this user's files, a device node, a FIFO) is refused with a clear error and
// left as it is. Files the operator names to be read (policy files, logs) are not Sluice's own: they may be
// links, FIFOs or standard input, and are read elsewhere.

// Writes `content` to `path` whole or not at all: through a new temporary file beside it (created
// exclusively, never through a link) renamed over the target once everything is on disk, so a full disk,
// a missing folder or a crash never leaves half a file (or an emptied old one) behind. A target that is
// anything but a regular file (a symbolic link, a device, a FIFO, a socket, a folder) is refused and left
// alone. Non-empty `permissions` are the file's from its first byte on; otherwise a file replaced keeps its
// mode and a new one gets the umask's. The failure names the path and the reason.
std::optional<Failure> writeWholeFile(const QString &path, const QByteArray &content,
                                      QFileDevice::Permissions permissions = {});

// A regular file of Sluice's own, read whole: at most `maxBytes`, never through a symbolic link, never
// blocking on a FIFO. `missing` when there is none; otherwise `failure` says why it could not be read.
struct OwnFileRead {
    QByteArray content;
    bool missing = false;
    std::optional<Failure> failure;
};
OwnFileRead readOwnFile(const QString &path, qint64 maxBytes);

// Makes `path` (and the folders above it) a folder only this user may enter (0700). One that exists must be
// a real folder of this user's: a symbolic link, or another user's folder, is refused and left as it is.
std::optional<Failure> ensurePrivateFolder(const QString &path);

// Whether `path` is itself a folder of this user's (not a symbolic link to one): one Sluice may sweep.
bool isOwnFolder(const QString &path);

} // namespace sluice::model
