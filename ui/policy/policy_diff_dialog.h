// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/policy/policy_diff.h"

#include <QDialog>

namespace sluice::ui {

// Two versions of a policy field by field: before a save, a rollback or a delete (with a button
// that confirms it), or to compare versions from the history (with Close only).
class PolicyDiffDialog : public QDialog {
    Q_OBJECT
public:
    struct Content {
        QString title;
        QString intro;       // what is about to happen, or what is compared
        QString beforeLabel; // column headings ("Stored (version 3)", "Yours")
        QString afterLabel;
        QVector<model::FieldChange> changes;
        QString warning;     // shown in red above the buttons when not empty
        QString confirmText; // empty: a comparison, Close only
    };

    PolicyDiffDialog(const Content &content, QWidget *parent = nullptr);
};

} // namespace sluice::ui
