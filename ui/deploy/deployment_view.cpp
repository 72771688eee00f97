// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/deploy/deployment_view.h"

#include "model/format/units.h"
#include "model/monitor/eviction_risk.h"
#include "model/policy/operator_identity.h"
#include "ui/connection/write_guard.h"
#include "ui/deploy/publish_review_dialog.h"
#include "ui/widgets/action_button.h"
#include "ui/widgets/banner.h"
#include "ui/widgets/state_palette.h"
#include "ui/widgets/tone_delegate.h"

#include <QAction>
#include <QDateTime>
#include <QDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace sluice::ui {

using model::DeploymentModel;
using model::NodeLibrary;

DeploymentView::DeploymentView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
    , m_model(new DeploymentModel(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *header = new QHBoxLayout;
    m_record = new QLabel(this);
    m_record->setObjectName(QStringLiteral("publishedRecord"));
    m_record->setWordWrap(true);
    m_record->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->addWidget(m_record, 1);
    auto addButton = [this, header](const QString &text, const char *name) {
        auto *button = new QPushButton(text, this);
        button->setObjectName(QLatin1String(name));
        header->addWidget(button, 0, Qt::AlignTop);
        return button;
    };
    m_refresh = addButton(tr("Refresh"), "refreshButton");
    m_dryRun = addButton(tr("Dry run\u2026"), "dryRunButton");
    m_publish = addButton(tr("Publish\u2026"), "deploymentPublishButton");
    m_refreshAction = new QAction(tr("Refresh"), this);
    pressesAction(m_refresh, m_refreshAction);
    m_dryRunAction = new QAction(tr("&Dry run\u2026"), this);
    m_dryRunAction->setObjectName(QStringLiteral("dryRunAction"));
    pressesAction(m_dryRun, m_dryRunAction);
    layout->addLayout(header);

    m_warning = new Banner(Tone::Warning, QStringLiteral("deploymentWarning"), this);
    m_warning->hide();
    layout->addWidget(m_warning);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("deploymentTable"));
    m_table->setAccessibleName(tr("Library on each primary"));
    m_table->setModel(m_model);
    // The library state: green when the node runs what was published, red when it drifted.
    colourByTone(m_table, DeploymentModel::State, [](const QModelIndex &index) -> std::optional<Tone> {
        const QVariant healthy = index.data(DeploymentModel::HealthyRole);
        if (!healthy.isValid())
            return std::nullopt;
        return healthy.toBool() ? Tone::Ok : Tone::Error;
    });
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("deploymentStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_refreshAction, &QAction::triggered, this, &DeploymentView::refresh);
    connect(m_dryRunAction, &QAction::triggered, this, [this] {
        showPage(this);
        dryRun();
    });
    connect(m_publish, &QPushButton::clicked, this, &DeploymentView::publish);
    updateActions();
    if (session)
        followSession(session);
}

void DeploymentView::followSession(model::ConnectionSession *session)
{
    m_session = session;
    m_record->setText(tr("Reading the deployment\u2026"));
    // The library watch reads the status once connected, after reconnects and on a timer; show each reading.
    connect(session->libraryWatch(), &model::LibraryWatch::checked, this,
            [this](const model::LibraryWatch::Report &report) {
        if (!m_publishing)
            showStatus(report.status);
    });
    updateActions();
}

void DeploymentView::updateActions()
{
    const bool connected = m_session;
    const bool writable = connected && !m_session->profile().readOnly;
    m_refreshAction->setEnabled(connected && !m_publishing);
    m_dryRunAction->setEnabled(connected);
    m_publish->setEnabled(writable && !m_publishing);
    m_publish->setToolTip(connected && !writable ? tr("This connection is read-only.") : QString());
}

void DeploymentView::refresh()
{
    // Through the session's library watch, so the window's drift banner hears the same reading.
    if (m_session && !m_publishing)
        m_session->libraryWatch()->checkNow();
}

void DeploymentView::showStatus(const model::DeploymentStatus &status)
{
    const model::LibraryRecord &record = status.published;
    QString text;
    if (status.failure)
        text = tr("Cannot read the deployment: %1").arg(status.failure->message);
    else if (status.history() == model::DeploymentStatus::History::DataLost)
        text = tr("<b>The stored policies, audit log and publish record are gone</b>, but primaries still run a "
                  "published library: the data was flushed or lost in a restart without persistence. Import your "
                  "last export on the Policies tab, then publish.");
    else if (record.version == 0)
        text = status.persistsNothing()
            ? tr("<b>Nothing published yet.</b> This server keeps nothing across a restart: if policies were "
                 "published here before one, they were lost with its data; import your last export to restore them.")
            : tr("<b>Nothing published yet.</b> Services cannot call the stored policies until a publish.");
    else
        text = tr("<b>Published version %1</b> by %2 at %3 &middot; policies: %4 &middot; digest <tt>%5</tt>")
                   .arg(record.version)
                   .arg(record.publishedBy.toHtmlEscaped(),
                        QDateTime::fromMSecsSinceEpoch(record.publishedAtMs)
                            .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                        model::formatCount(record.policyCount), QString::fromLatin1(record.digest));
    if (!status.failure && m_session) {
        const model::LibraryOwner owner = m_session->profile().libraryOwner();
        text += tr("<br>Library <tt>%1</tt> serves %2: services call <tt>%3</tt>.")
                    .arg(QString::fromLatin1(owner.libraryName()), owner.describe().toHtmlEscaped(),
                         QString::fromLatin1(owner.function("acquire")));
    }
    m_record->setText(text);
    int drifted = 0;
    int volatileNodes = 0;
    for (const NodeLibrary &node : status.nodes) {
        drifted += node.state != NodeLibrary::State::Current;
        volatileNodes += node.persistence == NodeLibrary::Persistence::None;
    }
    // The last publish's result stands only while the deployment still agrees with it: after a restart
    // without persistence the record is gone too, so no drift is reported, yet the library is missing.
    const bool publishedStillRuns
        = !status.failure && drifted == 0 && record.version == m_publishedToEvery && !status.nodes.isEmpty();
    if (status.failure || status.drift() || (m_publishedToEvery > 0 && !publishedStillRuns)) {
        m_status->clear();
        m_publishedToEvery = 0;
    }
    QStringList warnings;
    if (!status.failure && status.storedDiffers && record.version > 0)
        warnings << tr("The stored policies differ from the published library: services keep the published limits "
                       "until you publish.");
    if (!status.damaged.isEmpty()) {
        QStringList damaged;
        for (const model::DamagedPolicy &policy : status.damaged)
            damaged << policy.name;
        warnings << tr("Damaged stored policies, which a publish leaves out: %1. Import a policy file that defines "
                       "them to repair them (see the Policies tab).")
                        .arg(damaged.join(QStringLiteral(", ")));
    }
    if (record.version > 0 && drifted > 0)
        warnings << tr("Primaries not running the published library: %1. Publish again to restore it.").arg(drifted);
    if (volatileNodes > 0)
        warnings << tr("Primaries without persistence (no RDB snapshots, no AOF): %1. A restart loses the library "
                       "and every bucket: every subject gets its full limit again at once.")
                        .arg(volatileNodes);
    for (const NodeLibrary &node : status.nodes) {
        for (const QString &warning : model::evictionWarnings(node.maxmemoryPolicy, node.evictedKeys))
            warnings << tr("%1: %2.").arg(node.node, warning);
    }
    m_warning->setText(warnings.join(QLatin1Char('\n')));
    m_warning->setVisible(!warnings.isEmpty());
    m_model->setNodes(status.nodes);
}

void DeploymentView::review(std::function<void(const model::PublishPreview &)> then)
{
    m_status->setText(tr("Reading what a publish would change\u2026"));
    const QPointer<model::ConnectionSession> session = m_session;
    session->publisher().preview(this, [this, session, then](const model::PublishPreview &preview) {
        if (session != m_session)
            return; // the connection changed while reading
        if (preview.failure) {
            m_status->setText(tr("Cannot read what a publish would change: %1").arg(preview.failure->message));
            return;
        }
        m_status->clear();
        then(preview);
    });
}

void DeploymentView::publish()
{
    if (!m_session || m_publishing)
        return;
    if (m_session->profile().readOnly) { // says why, and publishes nothing
        guardWrite(this, m_session->profile(), tr("publish the library"), [] {});
        return;
    }
    review([this](const model::PublishPreview &preview) {
        auto *dialog
            = new PublishReviewDialog(preview, m_session->profile(), PublishReviewDialog::Purpose::Publish, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this,
                [this, digest = preview.library.digest] { publishAllowing(digest, {}); });
        dialog->open();
    });
}

void DeploymentView::publishAllowing(const QByteArray &reviewedDigest, const model::PublishAllowance &allowance)
{
    const QPointer<model::ConnectionSession> session = m_session;
    if (!session || m_publishing)
        return;
    m_publishing = true;
    updateActions();
    m_model->startPublish(session->primaries());
    m_status->setText(tr("Publishing\u2026"));
    auto finished = [this, session, reviewedDigest, allowance](const model::PublishResult &result) {
        m_publishing = false;
        updateActions();
        if (result.failure && result.failure->kind == model::Failure::Kind::Refused && session) {
            m_status->setText(tr("Nothing was published: %1").arg(result.failure->message));
            refresh(); // each primary as it still is
            const QString &reason = result.failure->message;
            const QString why = reason.left(1).toUpper() + reason.mid(1) + QLatin1Char('.');
            // Allowing only what this refusal needs: a later one asks again.
            confirmWrite(this, session->profile(), tr("publish it anyway"), why,
                         [this, reviewedDigest, allowed = allowance | result.needs] {
                publishAllowing(reviewedDigest, allowed);
            });
            return;
        }
        if (result.failure) {
            m_status->setText(result.failure->kind == model::Failure::Kind::OutcomeUnknown
                                  ? tr("The answer was lost (%1): the library may have been published. Refresh "
                                       "to see what each primary runs.")
                                        .arg(result.failure->message)
                                  : tr("Nothing was published: %1").arg(result.failure->message));
            refresh();
            return;
        }
        int current = 0;
        for (const NodeLibrary &node : result.nodes)
            current += node.state == NodeLibrary::State::Current;
        m_publishedToEvery = result.ok() ? result.library.version : 0;
        m_status->setText(
            result.ok()
                ? tr("Published version %1 to every primary (%2).").arg(result.library.version).arg(result.nodes.size())
                : tr("Version %1 runs on %2 of %3 primaries; see each one's detail.")
                      .arg(result.library.version)
                      .arg(current)
                      .arg(result.nodes.size()));
        Q_EMIT published();
        if (session)
            session->libraryWatch()->checkNow();
    };
    model::LibraryPublisher publisher = session->publisher(allowance);
    publisher.requireReviewed(reviewedDigest);
    publisher.publish(model::operatorIdentity(QStringLiteral("sluice")), this, finished,
                      [this](const NodeLibrary &node) { m_model->setNodeResult(node); });
}

void DeploymentView::dryRun()
{
    if (!m_session)
        return;
    review([this](const model::PublishPreview &preview) {
        m_status->setText(tr("Dry run: nothing was loaded."));
        auto *dialog
            = new PublishReviewDialog(preview, m_session->profile(), PublishReviewDialog::Purpose::DryRun, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
}

} // namespace sluice::ui
