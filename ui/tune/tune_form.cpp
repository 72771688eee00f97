// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tune/tune_form.h"

#include "model/format/units.h"
#include "ui/widgets/named.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace sluice::ui {

TuneForm::TuneForm(QWidget *parent)
    : QWidget(parent)
{
    auto *logs = new QGroupBox(tr("Access logs"), this);
    auto *logForm = new QFormLayout(logs);
    m_open = named(new QPushButton(tr("Ope&n logs\u2026"), logs), "openLogsButton");
    connect(m_open, &QPushButton::clicked, this, &TuneForm::openRequested);
    m_logList = named(new QLabel(tr("No log opened: nginx or Apache combined, an nginx log_format, JSON lines or "
                                    "CSV, plain or .gz."),
                                 logs),
                      "logList");
    m_logList->setWordWrap(true);
    logForm->addRow(m_open);
    logForm->addRow(m_logList);
    m_format = named(new QComboBox(logs), "formatCombo");
    const QStringList formats{tr("told from the first line"), tr("combined (nginx, Apache)"),
                              tr("nginx log_format below"), tr("JSON lines"), tr("CSV with a header")};
    for (int i = 0; i < formats.size(); ++i)
        m_format->addItem(formats.at(i), model::logFormatNames().at(i));
    logForm->addRow(tr("Form&at"), m_format);
    m_nginxFormat = named(new QLineEdit(logs), "nginxFormatEdit");
    m_nginxFormat->setPlaceholderText(QStringLiteral("$remote_addr [$time_local] \"$request\" $status $msec"));
    logForm->addRow(tr("log_format"), m_nginxFormat);
    m_subject = named(new QLineEdit(logs), "subjectFieldEdit");
    m_subject->setPlaceholderText(tr("remote_addr, or subject"));
    logForm->addRow(tr("Sub&ject field"), m_subject);
    m_time = named(new QLineEdit(logs), "timeFieldEdit");
    m_time->setPlaceholderText(tr("msec, time_iso8601, time_local, or time"));
    logForm->addRow(tr("Time field"), m_time);
    m_cost = named(new QLineEdit(logs), "costFieldEdit");
    m_cost->setPlaceholderText(tr("none: every request costs 1"));
    logForm->addRow(tr("Cost field"), m_cost);
    m_route = named(new QLineEdit(logs), "routeEdit");
    m_route->setPlaceholderText(tr("every request; e.g. ^POST /login"));
    logForm->addRow(tr("Route"), m_route);

    auto *candidates = new QGroupBox(tr("Candidates: stored policies"), this);
    auto *candidateLayout = new QVBoxLayout(candidates);
    m_candidates = named(new QListWidget(candidates), "candidateList");
    m_candidates->setMaximumHeight(110);
    m_candidates->setAccessibleName(tr("Stored policies to replay"));
    candidateLayout->addWidget(m_candidates);

    auto *suggest = new QGroupBox(tr("Suggest a limit"), this);
    auto *suggestForm = new QFormLayout(suggest);
    m_suggest = named(new QCheckBox(tr("Su&ggest the smallest limit that rejects at most"), suggest), "suggestCheck");
    m_suggest->setChecked(true);
    suggestForm->addRow(m_suggest);
    m_target = named(new QDoubleSpinBox(suggest), "targetSpin");
    m_target->setDecimals(3);
    m_target->setRange(0, 100);
    m_target->setValue(0.1);
    m_target->setSuffix(QStringLiteral(" %"));
    m_of = named(new QComboBox(suggest), "ofCombo");
    m_of->addItem(tr("of subjects"), true);
    m_of->addItem(tr("of requests"), false);
    auto *targetRow = new QHBoxLayout;
    targetRow->addWidget(m_target);
    targetRow->addWidget(m_of);
    suggestForm->addRow(tr("Target"), targetRow);
    m_algorithm = named(new QComboBox(suggest), "suggestAlgorithmCombo");
    for (const QString &name : model::algorithmNames())
        if (name != QLatin1String("concurrency"))
            m_algorithm->addItem(name, name);
    suggestForm->addRow(tr("Algorithm"), m_algorithm);
    m_window = named(new QLineEdit(QStringLiteral("1m"), suggest), "suggestWindowEdit");
    m_window->setToolTip(tr("500ms, 30s, 1m, 1h or 1d"));
    suggestForm->addRow(tr("Window"), m_window);
    m_burstFactor = named(new QDoubleSpinBox(suggest), "burstFactorSpin");
    m_burstFactor->setRange(0.01, 1000);
    m_burstFactor->setValue(1.0);
    m_burstFactor->setSuffix(tr(" \u00d7 the limit"));
    suggestForm->addRow(tr("Burst"), m_burstFactor);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(logs);
    layout->addWidget(candidates);
    layout->addWidget(suggest);
    layout->addStretch(1);
}

void TuneForm::setLogs(const QStringList &paths)
{
    m_logs = paths;
    QStringList names;
    for (const QString &path : paths)
        names << (path == QLatin1String("-") ? tr("standard input") : QFileInfo(path).fileName());
    m_logList->setText(paths.isEmpty() ? tr("No log opened.") : names.join(QLatin1String(", ")));
    m_logList->setToolTip(paths.join(QLatin1Char('\n')));
}

void TuneForm::setStoredPolicies(const QVector<model::Policy> &policies)
{
    QSet<QString> checked;
    for (const model::Policy &policy : checkedPolicies())
        checked.insert(policy.name);
    m_stored = policies;
    m_candidates->clear();
    for (const model::Policy &policy : policies) {
        auto *item = new QListWidgetItem(tr("%1: %2, %3 per %4")
                                             .arg(policy.name, model::algorithmName(policy.algorithm),
                                                  model::formatCount(policy.limit), model::formatWait(policy.windowMs)),
                                         m_candidates);
        item->setData(Qt::UserRole, policy.name);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(policy.name) ? Qt::Checked : Qt::Unchecked);
    }
}

void TuneForm::checkCandidate(const QString &name)
{
    for (int row = 0; row < m_candidates->count(); ++row)
        if (m_candidates->item(row)->data(Qt::UserRole).toString() == name)
            m_candidates->item(row)->setCheckState(Qt::Checked);
}

QVector<model::Policy> TuneForm::checkedPolicies() const
{
    QVector<model::Policy> checked;
    for (int row = 0; row < m_candidates->count(); ++row)
        if (m_candidates->item(row)->checkState() == Qt::Checked)
            checked.append(m_stored.value(row)); // the list holds m_stored in its order
    return checked;
}

bool TuneForm::suggests() const
{
    return m_suggest->isChecked();
}

std::optional<model::ReplayRequest> TuneForm::request(QString *problem) const
{
    model::ReplayRequest request;
    request.paths = m_logs;
    if (m_logs.isEmpty()) {
        *problem = tr("Open a log first.");
        return std::nullopt;
    }
    request.spec.format = *model::logFormatFromName(m_format->currentData().toString());
    request.spec.nginxDefinition = m_nginxFormat->text().trimmed();
    if (request.spec.format == model::LogFormatKind::Nginx && request.spec.nginxDefinition.isEmpty()) {
        *problem = tr("Give the nginx log_format the logs were written with.");
        return std::nullopt;
    }
    if (request.spec.format != model::LogFormatKind::Nginx && request.spec.format != model::LogFormatKind::Auto)
        request.spec.nginxDefinition.clear();
    request.spec.fields.subject = m_subject->text().trimmed();
    request.spec.fields.time = m_time->text().trimmed();
    request.spec.fields.cost = m_cost->text().trimmed();
    if (!m_route->text().trimmed().isEmpty()) {
        request.spec.fields.routeFilter = QRegularExpression(m_route->text().trimmed());
        if (!request.spec.fields.routeFilter.isValid()) {
            *problem
                = tr("The route is not a regular expression: %1").arg(request.spec.fields.routeFilter.errorString());
            return std::nullopt;
        }
    }
    request.candidates = checkedPolicies();
    if (request.candidates.isEmpty() && !suggests()) {
        *problem = tr("Check a stored policy to replay, or ask for a suggestion.");
        return std::nullopt;
    }
    return request;
}

std::optional<model::SuggestRequest> TuneForm::suggestion(QString *problem) const
{
    if (!suggests())
        return std::nullopt;
    model::SuggestRequest suggest;
    suggest.family.algorithm = *model::algorithmFromName(m_algorithm->currentData().toString());
    const auto window = model::parseDurationMs(m_window->text());
    if (!window || *window < 1 || *window > model::policy_limits::maxWindowMs) {
        *problem = tr("The window is a duration from 1ms to 7d: 500ms, 30s, 1m, 1h.");
        return std::nullopt;
    }
    suggest.family.windowMs = *window;
    suggest.family.burstFactor = m_burstFactor->value();
    suggest.target = m_target->value() / 100.0;
    suggest.ofSubjects = m_of->currentData().toBool();
    return suggest;
}

} // namespace sluice::ui
