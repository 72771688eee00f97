// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/time_range_dialog.h"

#include "model/format/units.h"
#include "ui/widgets/keyboard_use.h"
#include "ui/widgets/state_palette.h"

#include <QDateTime>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace sluice::ui {

namespace {

QDateTimeEdit *timeField(QWidget *parent, const char *name, const QString &accessibleName, qint64 fromMs, qint64 toMs,
                         qint64 valueMs)
{
    auto *field = new QDateTimeEdit(parent);
    field->setObjectName(QLatin1String(name));
    field->setAccessibleName(accessibleName);
    field->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    // Whole seconds, the field's own precision: the kept span's ends rounded outwards.
    field->setDateTimeRange(QDateTime::fromMSecsSinceEpoch(fromMs / 1000 * 1000),
                            QDateTime::fromMSecsSinceEpoch((toMs + 999) / 1000 * 1000));
    field->setDateTime(QDateTime::fromMSecsSinceEpoch(valueMs / 1000 * 1000));
    return field;
}

} // namespace

TimeRangeDialog::TimeRangeDialog(qint64 keptFromMs, qint64 keptToMs, std::pair<qint64, qint64> initial, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("timeRangeDialog"));
    setWindowTitle(tr("Show a range of the kept history"));
    m_from = timeField(this, "rangeFrom", tr("From"), keptFromMs, keptToMs, std::max(initial.first, keptFromMs));
    m_to = timeField(this, "rangeTo", tr("To"), keptFromMs, keptToMs, std::min(initial.second, keptToMs));
    auto *kept = new QLabel(tr("Kept: from %1 to %2 (%3). The chart stays on the range until another span is "
                               "picked.")
                                .arg(model::formatDateTime(keptFromMs), model::formatDateTime(keptToMs),
                                     model::formatDuration(std::max<qint64>(1, (keptToMs - keptFromMs) / 1000))),
                            this);
    kept->setWordWrap(true);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("rangeProblem"));
    m_problem->setStyleSheet(textStyle(Tone::Error));
    m_problem->hide();
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Show"));
    m_buttons->button(QDialogButtonBox::Ok)->setDefault(true); // it only changes what is shown
    auto *fields = new QFormLayout;
    fields->addRow(tr("&From:"), m_from);
    fields->addRow(tr("&To:"), m_to);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(kept);
    layout->addLayout(fields);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_from, &QDateTimeEdit::dateTimeChanged, this, &TimeRangeDialog::check);
    connect(m_to, &QDateTimeEdit::dateTimeChanged, this, &TimeRangeDialog::check);
    readyForKeyboard(this);
    check();
}

std::pair<qint64, qint64> TimeRangeDialog::range() const
{
    return {m_from->dateTime().toMSecsSinceEpoch(), m_to->dateTime().toMSecsSinceEpoch()};
}

void TimeRangeDialog::check()
{
    const bool ordered = m_from->dateTime() < m_to->dateTime();
    m_problem->setText(ordered ? QString() : tr("From must be before To."));
    m_problem->setVisible(!ordered);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ordered);
}

} // namespace sluice::ui
