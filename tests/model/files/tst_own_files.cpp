// SPDX-License-Identifier: GPL-3.0-or-later
// Sluice's own files, attacked as another local user would: a name planted as a link to one of this user's
// files, a device node (made with mknod in a private folder), a FIFO, a socket, a folder; a history folder that
// is a link; a file that never ends. Each is refused with a clear error and left exactly as it was.

#include "model/files/own_files.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

using namespace sluice;

namespace {

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

mode_t modeOf(const QString &path, bool followLink = false)
{
    struct stat found { };
    const QByteArray name = QFile::encodeName(path);
    if ((followLink ? ::stat(name.constData(), &found) : ::lstat(name.constData(), &found)) != 0)
        return 0;
    return found.st_mode;
}

// A socket bound at `path`, the non-regular file any user can make; closed and left in place.
bool makeSocket(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray name = QFile::encodeName(path);
    if (fd < 0 || name.size() >= qsizetype(sizeof(address.sun_path)))
        return false;
    std::copy(name.begin(), name.end(), address.sun_path);
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) == 0;
    ::close(fd);
    return bound;
}

// Files no regular file may replace, made in `folder`: a FIFO, a socket, a folder, and as root a
// character device with /dev/null's numbers.
QStringList plantedNames(const QString &folder)
{
    QStringList names;
    const QString fifo = folder + QStringLiteral("/fifo");
    if (::mkfifo(QFile::encodeName(fifo).constData(), 0666) == 0)
        names << fifo;
    const QString socket = folder + QStringLiteral("/socket");
    if (makeSocket(socket))
        names << socket;
    const QString subfolder = folder + QStringLiteral("/folder");
    if (QDir().mkdir(subfolder))
        names << subfolder;
    const QString device = folder + QStringLiteral("/device");
    if (::mknod(QFile::encodeName(device).constData(), S_IFCHR | 0666, makedev(1, 3)) == 0)
        names << device;
    else
        qInfo("not root: mknod was refused, so the device case is left to CI (it runs as root)");
    return names;
}

} // namespace

class TestOwnFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // An export or CSV named by a link to another of this user's files: the link and the file stay as they were.
    void writingNeverGoesThroughALink()
    {
        QTemporaryDir dir;
        const QString precious = dir.filePath(QStringLiteral("precious"));
        QVERIFY(writeFile(precious, "keep me"));
        const mode_t preciousMode = modeOf(precious);
        const QString link = dir.filePath(QStringLiteral("export.json"));
        QVERIFY(QFile::link(precious, link));
        const auto refused
            = model::writeWholeFile(link, "overwritten", QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        QVERIFY(refused);
        QVERIFY2(refused->message.contains(QLatin1String("cannot write"))
                     && refused->message.contains(QLatin1String("symbolic link")),
                 qPrintable(refused->message));
        QVERIFY(S_ISLNK(modeOf(link)));
        QCOMPARE(contentOf(precious), QByteArray("keep me"));
        QCOMPARE(modeOf(precious), preciousMode);
        QCOMPARE(
            QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System).size(),
            2); // no temporary file left behind
    }

    // `sluicectl export /dev/null` as root replaced the system's /dev/null. The same kinds of file, made in a
    // private folder: each refused, each still what it was, nothing else left there.
    void writingReplacesNoDeviceFifoSocketOrFolder()
    {
        QTemporaryDir dir;
        const QStringList planted = plantedNames(dir.path());
        QVERIFY(planted.size() >= 3);
        for (const QString &name : planted) {
            const mode_t before = modeOf(name);
            const auto refused = model::writeWholeFile(name, "data");
            QVERIFY2(refused, qPrintable(name));
            QVERIFY2(refused->message.contains(QLatin1String("not a regular file"))
                         || refused->message.contains(QLatin1String("folder")),
                     qPrintable(refused->message));
            QCOMPARE(modeOf(name), before);
        }
        QCOMPARE(
            QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System).size(),
            planted.size());
    }

    // A regular file is still replaced whole, keeping its mode unless one is asked for.
    void aRegularFileIsReplacedWholeKeepingItsMode()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("policies.json"));
        QVERIFY(writeFile(path, "old"));
        QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup));
        QVERIFY(!model::writeWholeFile(path, "new"));
        QCOMPARE(contentOf(path), QByteArray("new"));
        QCOMPARE(modeOf(path) & 0777, mode_t(0640));
        QVERIFY(!model::writeWholeFile(path, "newer", QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QCOMPARE(modeOf(path) & 0777, mode_t(0600));
        const QString fresh = dir.filePath(QStringLiteral("fresh.csv"));
        QVERIFY(!model::writeWholeFile(fresh, "a,b\n"));
        QCOMPARE(contentOf(fresh), QByteArray("a,b\n"));
    }

    // The rate history's reads: a link, a device that never ends (/dev/zero aborted the dashboard), a FIFO
    // with no writer (it hung the dashboard), a file past the bound. Each refused at once, naming why.
    void readingOwnFilesRefusesWhatIsNotOne()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("someone-elses"));
        QVERIFY(writeFile(target, "secret"));
        const QString link = dir.filePath(QStringLiteral("api.rates"));
        QVERIFY(QFile::link(target, link));
        const QString fifo = dir.filePath(QStringLiteral("fifo.rates"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        const QString large = dir.filePath(QStringLiteral("large.rates"));
        QVERIFY(writeFile(large, QByteArray(2048, 'x')));
        const QList<QPair<QString, QString>> cases{{link, QStringLiteral("symbolic link")},
                                                   {QStringLiteral("/dev/zero"), QStringLiteral("device")},
                                                   {fifo, QStringLiteral("FIFO")},
                                                   {large, QStringLiteral("larger than the 1024 bytes")}};
        for (const auto &[path, why] : cases) {
            QElapsedTimer timer;
            timer.start();
            const model::OwnFileRead read = model::readOwnFile(path, 1024);
            QVERIFY2(read.failure && read.failure->message.contains(why),
                     qPrintable(path + QLatin1String(": ") + (read.failure ? read.failure->message : QString())));
            QVERIFY(read.content.isEmpty());
            QVERIFY2(timer.elapsed() < 1000, qPrintable(path));
        }
        const model::OwnFileRead absent = model::readOwnFile(dir.filePath(QStringLiteral("none")), 1024);
        QVERIFY(absent.missing && !absent.failure);
        const model::OwnFileRead fine = model::readOwnFile(target, 1024);
        QVERIFY(!fine.failure && !fine.missing);
        QCOMPARE(fine.content, QByteArray("secret"));
    }

    // A history folder planted as a link had its target's mode changed to 0700: now refused, the target as
    // it was; another user's folder is refused too; the folder Sluice makes is 0700.
    void privateFoldersAreNeverReachedThroughALink()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("shared"));
        QVERIFY(QDir().mkdir(target));
        QVERIFY(QFile::setPermissions(target,
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
                                          | QFileDevice::ReadGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther
                                          | QFileDevice::ExeOther));
        const QString link = dir.filePath(QStringLiteral("history"));
        QVERIFY(QFile::link(target, link));
        const auto refused = model::ensurePrivateFolder(link);
        QVERIFY(refused && refused->message.contains(QLatin1String("symbolic link")));
        QCOMPARE(modeOf(target) & 0777, mode_t(0755));
        QVERIFY(!model::isOwnFolder(link));

        const QString made = dir.filePath(QStringLiteral("rates/api"));
        QVERIFY(!model::ensurePrivateFolder(made));
        QCOMPARE(modeOf(made) & 0777, mode_t(0700));
        QVERIFY(model::isOwnFolder(made));

        if (::geteuid() == 0) {
            const QString theirs = dir.filePath(QStringLiteral("theirs"));
            QVERIFY(QDir().mkdir(theirs));
            QVERIFY(::chown(QFile::encodeName(theirs).constData(), 65534, 65534) == 0); // nobody
            const auto notOurs = model::ensurePrivateFolder(theirs);
            QVERIFY(notOurs && notOurs->message.contains(QLatin1String("another user")));
            QVERIFY(!model::isOwnFolder(theirs));
        } else {
            qInfo("not root: another user's folder is left to CI (it runs as root)");
        }
    }
};

QTEST_GUILESS_MAIN(TestOwnFiles)
#include "tst_own_files.moc"
