// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_profile.h"
#include "model/deploy/library_publisher.h"

#include <QDialog>

namespace sluice::ui {

// What a publish would change, policy by policy and field by field, against the published version:
// shown by a dry run (Close only) and before every publish (Publish or Cancel, Cancel the default),
// on every connection; a production one says so first. The generated policy table is one click away.
class PublishReviewDialog : public QDialog {
    Q_OBJECT
public:
    enum class Purpose { DryRun, Publish };

    PublishReviewDialog(const model::PublishPreview &preview, const model::ConnectionProfile &profile, Purpose purpose,
                        QWidget *parent = nullptr);
};

} // namespace sluice::ui
