// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/policy/policy_commit.h"

#include "model/policy/operator_identity.h"
#include "ui/connection/write_guard.h"

#include <QCoreApplication>
#include <QPointer>
#include <QWidget>

namespace sluice::ui {

void commitPolicyChanges(QWidget *parent, model::ConnectionSession *session, const QString &what,
                         const QVector<model::PolicyChange> &changes,
                         std::function<void(const model::PolicyStore::CommitResult &)> done,
                         const std::optional<QStringList> &expectedNames)
{
    const QPointer<model::ConnectionSession> guarded = session;
    guardWrite(parent, session->profile(), what, [parent, guarded, changes, done, expectedNames] {
        if (!guarded)
            return;
        guarded->policyStore().commit(changes, model::operatorIdentity(QStringLiteral("sluice")), parent, done,
                                      expectedNames);
    });
}

QString commitFailureText(const model::Failure &failure)
{
    if (failure.kind == model::Failure::Kind::OutcomeUnknown)
        return QCoreApplication::translate("sluice::ui::commitPolicyChanges",
                                           "The answer was lost (%1), so the change may have been applied. Refresh "
                                           "the policies and read their History before saving again.")
            .arg(failure.message);
    return QCoreApplication::translate("sluice::ui::commitPolicyChanges", "Nothing was applied: %1.")
        .arg(failure.message);
}

} // namespace sluice::ui
