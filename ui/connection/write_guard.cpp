// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/connection/write_guard.h"

#include <QCoreApplication>
#include <QMessageBox>

namespace sluice::ui {

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::ui::WriteGuard)
};

void ask(QWidget *parent, const model::ConnectionProfile &profile, const QString &what, bool alwaysAsk,
         const QString &detail, std::function<void()> proceed)
{
    if (profile.readOnly) {
        auto *refused
            = new QMessageBox(QMessageBox::Information, Text::tr("Read-only connection"),
                              Text::tr("\u201c%1\u201d is read-only, so Sluice will not %2.").arg(profile.name, what),
                              QMessageBox::Ok, parent);
        refused->setObjectName(QStringLiteral("writeRefused"));
        refused->setAttribute(Qt::WA_DeleteOnClose);
        refused->open();
        return;
    }
    if (!profile.writesNeedConfirmation() && !alwaysAsk) {
        proceed();
        return;
    }
    QString text = profile.writesNeedConfirmation()
        ? Text::tr("\u201c%1\u201d is a production connection.\n\nReally %2?").arg(profile.name, what)
        : Text::tr("Really %1?").arg(what);
    if (!detail.isEmpty())
        text += QStringLiteral("\n\n") + detail;
    auto *confirm = new QMessageBox(QMessageBox::Warning,
                                    profile.writesNeedConfirmation() ? Text::tr("Production") : Text::tr("Confirm"),
                                    text, QMessageBox::Yes | QMessageBox::Cancel, parent);
    confirm->setObjectName(QStringLiteral("writeConfirmation"));
    confirm->setDefaultButton(QMessageBox::Cancel);
    confirm->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(confirm, &QMessageBox::finished, confirm, [proceed](int answer) {
        if (answer == QMessageBox::Yes)
            proceed();
    });
    confirm->open();
}

} // namespace

void guardWrite(QWidget *parent, const model::ConnectionProfile &profile, const QString &what,
                std::function<void()> proceed)
{
    ask(parent, profile, what, false, {}, std::move(proceed));
}

void confirmWrite(QWidget *parent, const model::ConnectionProfile &profile, const QString &what, const QString &detail,
                  std::function<void()> proceed)
{
    ask(parent, profile, what, true, detail, std::move(proceed));
}

} // namespace sluice::ui
