// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/files/own_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sluice::model {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::OwnFiles)
};

// A file descriptor, closed when it goes.
class Descriptor {
public:
    explicit Descriptor(int fd = -1)
        : m_fd(fd)
    {
    }
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;
    ~Descriptor() { reset(-1); }
    void reset(int fd)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }
    // Closes it now, for the error close() can report on a file just written.
    bool close()
    {
        const int fd = m_fd;
        m_fd = -1;
        return ::close(fd) == 0;
    }
    operator int() const { return m_fd; }

private:
    int m_fd;
};

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// What a file that is not a regular one is, for the reason it is refused.
QString kindOf(mode_t mode)
{
    if (S_ISLNK(mode))
        return Text::tr("it is a symbolic link: name the file it points to, if that is meant");
    if (S_ISDIR(mode))
        return Text::tr("it is a folder");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return Text::tr("it is a device, not a regular file");
    if (S_ISFIFO(mode))
        return Text::tr("it is a FIFO, not a regular file");
    if (S_ISSOCK(mode))
        return Text::tr("it is a socket, not a regular file");
    return Text::tr("it is not a regular file");
}

mode_t modeOf(QFileDevice::Permissions permissions)
{
    mode_t mode = 0;
    const std::pair<QFileDevice::Permission, mode_t> bits[]
        = {{QFileDevice::ReadOwner, S_IRUSR}, {QFileDevice::WriteOwner, S_IWUSR}, {QFileDevice::ExeOwner, S_IXUSR},
           {QFileDevice::ReadGroup, S_IRGRP}, {QFileDevice::WriteGroup, S_IWGRP}, {QFileDevice::ExeGroup, S_IXGRP},
           {QFileDevice::ReadOther, S_IROTH}, {QFileDevice::WriteOther, S_IWOTH}, {QFileDevice::ExeOther, S_IXOTH}};
    for (const auto &[permission, bit] : bits)
        if (permissions.testFlag(permission))
            mode |= bit;
    return mode;
}

bool writeAll(int fd, const QByteArray &content)
{
    qint64 done = 0;
    while (done < content.size()) {
        const ssize_t written = ::write(fd, content.constData() + done, static_cast<size_t>(content.size() - done));
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return false;
        done += written;
    }
    return true;
}

// Why the name `name` in the folder open as `folder` may not be written: it exists and is no regular file.
std::optional<QString> notWritable(int folder, const QByteArray &name, struct stat *found, bool *exists)
{
    *exists = ::fstatat(folder, name.constData(), found, AT_SYMLINK_NOFOLLOW) == 0;
    if (!*exists)
        return errno == ENOENT ? std::nullopt : std::optional<QString>(systemError(errno));
    if (!S_ISREG(found->st_mode))
        return kindOf(found->st_mode);
    return std::nullopt;
}

} // namespace

std::optional<Failure> writeWholeFile(const QString &path, const QByteArray &content,
                                      QFileDevice::Permissions permissions)
{
    const auto failed = [&path](const QString &reason) {
        return Failure::serverError(
            QCoreApplication::translate("sluice::model::writeWholeFile", "cannot write %1: %2").arg(path, reason));
    };
    const QFileInfo info(path);
    const QByteArray name = QFile::encodeName(info.fileName());
    if (name.isEmpty())
        return failed(Text::tr("no file name"));
    const Descriptor folder(
        ::open(QFile::encodeName(info.absolutePath()).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder < 0)
        return failed(systemError(errno));
    struct stat target { };
    bool exists = false;
    if (const auto refused = notWritable(folder, name, &target, &exists))
        return failed(*refused);

    // The mode: the one asked for, or a replaced file's; else the umask's.
    const bool fixedMode = permissions != QFileDevice::Permissions() || exists;
    const mode_t mode = permissions != QFileDevice::Permissions() ? modeOf(permissions) : target.st_mode & 07777;
    // The temporary file: a new name (O_EXCL), never a link's (O_NOFOLLOW), private until it is whole.
    QByteArray temporary;
    Descriptor file;
    for (int attempt = 0; attempt < 8 && file < 0; ++attempt) {
        temporary = '.' + name + '.' + QByteArray::number(QRandomGenerator::system()->generate64(), 36);
        file.reset(::openat(folder, temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            fixedMode ? 0600 : 0666));
        if (file < 0 && errno != EEXIST)
            return failed(systemError(errno));
    }
    if (file < 0)
        return failed(systemError(EEXIST));
    const auto discard = [&](int error) {
        ::unlinkat(folder, temporary.constData(), 0);
        return failed(systemError(error));
    };
    if ((fixedMode && ::fchmod(file, mode) != 0) || !writeAll(file, content) || ::fsync(file) != 0)
        return discard(errno);
    if (!file.close())
        return discard(errno);
    // Checked again at the last moment: what took the name meanwhile is left alone too.
    if (const auto refused = notWritable(folder, name, &target, &exists)) {
        ::unlinkat(folder, temporary.constData(), 0);
        return failed(*refused);
    }
    if (::renameat(folder, temporary.constData(), folder, name.constData()) != 0)
        return discard(errno);
    ::fsync(folder); // the rename itself on disk; a folder that cannot be synced (some file systems) is no failure
    return std::nullopt;
}

OwnFileRead readOwnFile(const QString &path, qint64 maxBytes)
{
    OwnFileRead read;
    const auto failed = [&](const QString &reason) {
        read.failure = Failure::serverError(Text::tr("cannot read %1: %2").arg(path, reason));
        return read;
    };
    // Non-blocking, so that opening a FIFO returns at once (it is refused below).
    const Descriptor file(::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file < 0) {
        if (errno == ENOENT) {
            read.missing = true;
            return read;
        }
        struct stat link { };
        if (errno == ELOOP && ::lstat(QFile::encodeName(path).constData(), &link) == 0)
            return failed(kindOf(link.st_mode));
        return failed(systemError(errno));
    }
    struct stat found { };
    if (::fstat(file, &found) != 0)
        return failed(systemError(errno));
    if (!S_ISREG(found.st_mode))
        return failed(kindOf(found.st_mode));
    if (found.st_size > maxBytes)
        return failed(Text::tr("it is larger than the %1 bytes it may have").arg(maxBytes));
    read.content.resize(static_cast<qsizetype>(found.st_size));
    qint64 done = 0;
    while (done < read.content.size()) {
        const ssize_t got = ::read(file, read.content.data() + done, static_cast<size_t>(read.content.size() - done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return failed(systemError(errno));
        if (got == 0)
            break;
        done += got;
    }
    read.content.truncate(static_cast<qsizetype>(done));
    return read;
}

std::optional<Failure> ensurePrivateFolder(const QString &path)
{
    const auto failed = [&](const QString &reason) {
        return Failure::serverError(Text::tr("cannot use the folder %1: %2").arg(path, reason));
    };
    if (!QDir().mkpath(path))
        return failed(Text::tr("it cannot be created"));
    const Descriptor folder(
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (folder < 0) {
        struct stat link { };
        if (::lstat(QFile::encodeName(path).constData(), &link) == 0 && !S_ISDIR(link.st_mode))
            return failed(kindOf(link.st_mode));
        return failed(systemError(errno));
    }
    struct stat found { };
    if (::fstat(folder, &found) != 0)
        return failed(systemError(errno));
    if (found.st_uid != ::geteuid())
        return failed(Text::tr("it belongs to another user"));
    if ((found.st_mode & 07777) != S_IRWXU && ::fchmod(folder, S_IRWXU) != 0)
        return failed(systemError(errno));
    return std::nullopt;
}

bool isOwnFolder(const QString &path)
{
    struct stat found { };
    return ::lstat(QFile::encodeName(path).constData(), &found) == 0 && S_ISDIR(found.st_mode)
        && found.st_uid == ::geteuid();
}

} // namespace sluice::model
