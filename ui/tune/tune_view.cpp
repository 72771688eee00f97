// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tune/tune_view.h"

#include "model/format/units.h"
#include "model/policy/lists_store.h"
#include "ui/policy/policy_commit.h"
#include "ui/policy/policy_editor.h"
#include "ui/tune/tune_form.h"
#include "ui/tune/tune_results.h"
#include "ui/widgets/banner.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace sluice::ui {

TuneView::TuneView(model::ConnectionSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
{
    setObjectName(QStringLiteral("tuneView"));
    m_form = new TuneForm(this);
    connect(m_form, &TuneForm::openRequested, this, &TuneView::chooseLogs);
    m_run = new QPushButton(tr("&Replay"), this);
    m_run->setObjectName(QStringLiteral("replayButton"));
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (m_running)
            cancel();
        else
            replay();
    });
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("replayProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("replayStatus"));
    m_status->setWordWrap(true);

    // The form scrolls; the button that runs it and what it is doing stay in sight.
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *left = new QWidget(this);
    left->setMinimumWidth(340);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 4, 0);
    leftLayout->addWidget(scroll, 1);
    leftLayout->addWidget(m_run);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_status);

    m_results = new TuneResults(this);
    connect(m_results, &TuneResults::selectionChanged, this, &TuneView::updateActions);
    m_banner = new Banner(Tone::Info, QStringLiteral("tuneBanner"), this);
    m_banner->hide();
    m_publish = new QPushButton(tr("Publish library\u2026"), this);
    m_publish->setObjectName(QStringLiteral("tunePublishButton"));
    m_publish->hide();
    connect(m_publish, &QPushButton::clicked, this, &TuneView::publishRequested);
    m_use = new QPushButton(tr("Use this li&mit\u2026"), this);
    m_use->setObjectName(QStringLiteral("useLimitButton"));
    connect(m_use, &QPushButton::clicked, this, &TuneView::useLimit);
    m_shadow = new QPushButton(tr("Pu&blish as shadow\u2026"), this);
    m_shadow->setObjectName(QStringLiteral("publishShadowButton"));
    connect(m_shadow, &QPushButton::clicked, this, &TuneView::publishAsShadow);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_banner, 1);
    actions->addWidget(m_publish);
    actions->addStretch(0);
    actions->addWidget(m_use);
    actions->addWidget(m_shadow);

    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(4, 0, 0, 0);
    rightLayout->addWidget(m_results, 1);
    rightLayout->addLayout(actions);

    auto *splitter = new QSplitter(this);
    splitter->setObjectName(QStringLiteral("tuneSplit"));
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({340, 680});
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(&m_runner, &model::ReplayRunner::progressed, this, &TuneView::showProgress);
    connect(&m_runner, &model::ReplayRunner::finished, this, &TuneView::showFinished);
    if (m_session)
        connect(m_session, &model::ConnectionSession::ready, this, [this] {
            if (isVisible())
                loadPolicies();
        });
    m_status->setText(tr("Replays run on their own thread: the dashboard stays live meanwhile."));
    updateActions();
}

void TuneView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    loadPolicies(); // policies may have changed on the Policies tab
}

void TuneView::loadPolicies()
{
    if (!m_session)
        return;
    m_session->policyStore().list(this, [this](const model::PolicyStore::ListResult &result) {
        if (result.failure) {
            m_banner->setTone(Tone::Error);
            m_banner->setText(tr("The stored policies could not be read: %1").arg(result.failure->message));
            m_banner->show();
            m_bannerTellsReadError = true;
            return;
        }
        if (m_bannerTellsReadError)
            m_banner->hide();
        m_bannerTellsReadError = false;
        m_stored = result.policies;
        m_form->setStoredPolicies(result.policies);
        updateActions();
        if (!m_session)
            return;
        m_session->listsStore().read(this, [this](const model::ListsStore::ReadResult &lists) {
            m_lists = lists.lists.entries;
            if (!lists.failure)
                return;
            // Replays then decide without the lists: said, not hidden.
            m_banner->setTone(Tone::Warning);
            m_banner->setText(tr("The namespace's allow and deny lists could not be read, so replays leave them out: "
                                 "%1")
                                  .arg(lists.failure->message));
            m_banner->show();
            m_bannerTellsReadError = true;
        });
    });
}

void TuneView::chooseLogs()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open access logs"), QString(),
        tr("Access logs (*.log *.log.* *.gz *.jsonl *.json *.csv *.txt);;All files (*)"));
    if (!paths.isEmpty())
        openLogs(paths);
}

void TuneView::openLogs(const QStringList &paths)
{
    m_form->setLogs(paths);
    m_results->clear(tr("Replay to see what each candidate would have done."));
    updateActions();
}

bool TuneView::replay()
{
    QString problem;
    std::optional<model::ReplayRequest> request = m_form->request(&problem);
    if (request)
        request->namespaceLists = m_lists; // as the library applies them to every policy once published
    const std::optional<model::SuggestRequest> suggest = request ? m_form->suggestion(&problem) : std::nullopt;
    if (!request || (m_form->suggests() && !suggest)) {
        m_status->setText(problem);
        m_status->setStyleSheet(textStyle(Tone::Error));
        return false;
    }
    m_suggest = suggest;
    m_running = true;
    m_results->clear(tr("Replaying\u2026"));
    m_status->setStyleSheet(QString());
    m_status->setText(tr("Reading\u2026"));
    m_progress->setValue(0);
    m_runner.start(*request, suggest);
    updateActions();
    return true;
}

void TuneView::cancel()
{
    m_runner.cancel();
}

QString TuneView::statusText() const
{
    return m_status->text();
}

void TuneView::showProgress(const model::ReplayProgress &progress)
{
    m_results->showPreview(progress.stats.preview);
    if (progress.fraction >= 0)
        m_progress->setValue(int(progress.fraction * 1000));
    else
        m_progress->setRange(0, 0); // busy: a pipe has no size
    m_status->setText(progress.suggesting ? tr("%1 lines read; replaying at other limits for the suggestion\u2026")
                                                .arg(model::formatCount(progress.stats.lines))
                                          : tr("%1 lines read (%2 malformed), %3 lines/s")
                                                .arg(model::formatCount(progress.stats.lines),
                                                     model::formatCount(progress.stats.malformed),
                                                     model::formatCount(qint64(progress.linesPerSecond))));
}

void TuneView::showFinished(const model::ReplayResult &result)
{
    m_running = false;
    m_progress->setRange(0, 1000);
    m_progress->setValue(result.cancelled || result.failure ? 0 : 1000);
    if (result.failure) {
        m_results->clear(result.failure->message);
        m_results->showPreview(result.stats.preview);
        m_status->setText(result.failure->message);
        m_status->setStyleSheet(textStyle(Tone::Error));
    } else if (result.cancelled) {
        m_results->clear(tr("Cancelled."));
        m_results->showPreview(result.stats.preview);
        m_status->setText(tr("Cancelled after %1 lines.").arg(model::formatCount(result.stats.lines)));
        m_status->setStyleSheet(textStyle(Tone::Muted));
    } else {
        m_results->showResult(result, m_suggest);
        m_status->setStyleSheet(QString());
        m_status->setText(tr("%1 lines (%2 malformed, %3 left out): %4 requests by %5 subjects in %6.%7")
                              .arg(model::formatCount(result.stats.lines), model::formatCount(result.stats.malformed),
                                   model::formatCount(result.stats.skipped), model::formatCount(result.stats.requests),
                                   model::formatCount(result.subjects), model::formatWait(result.elapsedMs),
                                   result.stats.secondsSpread
                                       ? tr(" The logs give whole seconds: each second's lines were spread over it.")
                                       : QString()));
    }
    updateActions();
}

void TuneView::updateActions()
{
    const bool running = m_running;
    m_run->setText(running ? tr("&Cancel") : tr("&Replay"));
    m_form->setEnabled(!running);
    const std::optional<TunedLimit> chosen = running ? std::nullopt : m_results->selected();
    const bool writable = m_session && !m_session->profile().readOnly;
    m_use->setEnabled(chosen.has_value() && writable);
    const bool followsOne = livePolicy().has_value();
    m_shadow->setEnabled(chosen.has_value() && writable && followsOne);
    m_shadow->setToolTip(followsOne ? QString()
                                    : tr("Check the one stored policy the shadow would follow among the candidates."));
}

std::optional<model::Policy> TuneView::livePolicy() const
{
    std::optional<model::Policy> live;
    for (const model::Policy &policy : m_form->checkedPolicies()) {
        if (policy.shadow)
            continue;
        if (live)
            return std::nullopt; // two live policies: which one the twin follows is not clear
        live = policy;
    }
    return live;
}

void TuneView::useLimit()
{
    const std::optional<TunedLimit> chosen = m_results->selected();
    if (!chosen)
        return;
    QStringList names;
    for (const model::Policy &policy : std::as_const(m_stored))
        names << policy.name;
    // A stored policy is edited to the chosen definition; the suggestion edits the policy it was tuned for.
    std::optional<model::Policy> base;
    for (const model::Policy &policy : std::as_const(m_stored))
        if (policy.name == chosen->policy.name)
            base = policy;
    if (!base && chosen->suggested)
        base = livePolicy();
    model::Policy proposed = chosen->policy;
    if (base)
        proposed.name = base->name;
    proposed.shadow = base ? base->shadow : false;
    proposed.description = base ? base->description : QString();
    auto *editor = new PolicyEditor(m_session, base, names, this);
    editor->setAttribute(Qt::WA_DeleteOnClose);
    editor->propose(proposed);
    connect(editor, &PolicyEditor::saved, this, &TuneView::loadPolicies);
    editor->open();
}

void TuneView::publishAsShadow()
{
    const std::optional<TunedLimit> chosen = m_results->selected();
    const std::optional<model::Policy> live = livePolicy();
    if (!chosen || !live)
        return;
    model::Policy twin = chosen->policy;
    twin.name = QStringLiteral("%1-shadow-%2").arg(live->name.left(40)).arg(twin.limit);
    twin.shadow = true;
    twin.shadowOf = live->name;
    twin.predictedRejectedShare = chosen->rejectedShare;
    twin.windowStart = twin.algorithm == model::Algorithm::FixedWindow ? twin.windowStart : model::WindowStart::Aligned;
    twin.description
        = tr("Replay of %1: predicted %2 of requests and %3 of subjects rejected")
              .arg(m_form->logs().join(QLatin1String(", ")).right(300), model::formatShare(chosen->rejectedShare),
                   model::formatShare(chosen->subjectsRejectedShare))
              .left(model::policy_limits::maxDescriptionLength);
    const QVector<model::PolicyError> problems = model::validatePolicy(twin);
    if (!problems.isEmpty()) {
        m_banner->setTone(Tone::Error);
        m_banner->setText(problems.first().toString());
        m_banner->show();
        return;
    }
    commitPolicyChanges(this, m_session, tr("Store %1 as a shadow twin of %2").arg(twin.name, live->name),
                        {{model::PolicyChange::Kind::Put, twin, 0}},
                        [this, twin, live = *live](const model::PolicyStore::CommitResult &result) {
        if (result.failure) {
            m_banner->setTone(Tone::Error);
            m_banner->setText(commitFailureText(*result.failure));
            m_banner->show();
            return;
        }
        m_bannerTellsReadError = false;
        m_banner->setTone(Tone::Ok);
        m_banner->setText(tr("Stored %1, a shadow twin of %2. Publish the library to measure it "
                             "on %2's live calls.")
                              .arg(twin.name, live.name));
        m_banner->show();
        m_publish->show();
        loadPolicies();
    });
}

} // namespace sluice::ui
