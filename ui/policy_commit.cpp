#include "ui/policy_commit.h"

#include "model/policy/operator_identity.h"
#include "ui/write_guard.h"

#include <QPointer>
#include <QWidget>

namespace sluice::ui {

void commitPolicyChanges(QWidget *parent, model::ConnectionSession *session, const QString &what,
                         const QVector<model::PolicyChange> &changes,
                         std::function<void(const model::PolicyStore::CommitResult &)> done)
{
    const QPointer<model::ConnectionSession> guarded = session;
    guardWrite(parent, session->profile(), what, [parent, guarded, changes, done] {
        if (!guarded)
            return;
        model::PolicyStore(guarded->client(), guarded->profile().ns)
            .commit(changes, model::operatorIdentity(QStringLiteral("sluice")), parent, done);
    });
}

} // namespace sluice::ui
