// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/policy_store.h"

#include <functional>

class QWidget;

namespace sluice::ui {

// Commits policy changes from the dashboard: through the write gate (read-only refuses, production
// asks), as the operator, on the session's namespace. `done` runs only when the commit was sent.
// expectedNames: the set of names the changes were planned against, when a plan prunes.
void commitPolicyChanges(QWidget *parent, model::ConnectionSession *session, const QString &what,
                         const QVector<model::PolicyChange> &changes,
                         std::function<void(const model::PolicyStore::CommitResult &)> done,
                         const std::optional<QStringList> &expectedNames = std::nullopt);

// What a failed commit did, in the dashboard's words: nothing, or (its answer lost) maybe everything.
QString commitFailureText(const model::Failure &failure);

} // namespace sluice::ui
