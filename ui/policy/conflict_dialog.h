// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy.h"

#include <QDialog>

#include <optional>

namespace sluice::ui {

// Someone saved the policy after the editor opened it: their change and yours side by side, and
// what to do about it.
class ConflictDialog : public QDialog {
    Q_OBJECT
public:
    enum class Choice { Reload, Overwrite, KeepEditing };

    // base: what the editor started from (none for a new policy); theirs: what is stored now (none
    // when they deleted it); mine: what the form holds.
    ConflictDialog(const std::optional<model::Policy> &base, const std::optional<model::Policy> &theirs,
                   const model::Policy &mine, QWidget *parent = nullptr);

Q_SIGNALS:
    void chosen(sluice::ui::ConflictDialog::Choice choice);
};

} // namespace sluice::ui
