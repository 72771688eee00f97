#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/policy_store.h"

#include <functional>

class QWidget;

namespace sluice::ui {

// Commits policy changes from the dashboard: through the write gate (read-only refuses, production
// asks), as the operator, on the session's namespace. `done` runs only when the commit was sent.
void commitPolicyChanges(QWidget *parent, model::ConnectionSession *session, const QString &what,
                         const QVector<model::PolicyChange> &changes,
                         std::function<void(const model::PolicyStore::CommitResult &)> done);

} // namespace sluice::ui
