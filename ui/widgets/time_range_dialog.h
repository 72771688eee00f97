// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

#include <utility>

class QDateTimeEdit;
class QDialogButtonBox;
class QLabel;

namespace sluice::ui {

// Asks for a span of time within what is kept, to the second, in local time: From and To, each bounded by the
// earliest and latest kept; Show is refused (and says why) while From is not before To. Enter shows: it only
// changes what a chart shows.
class TimeRangeDialog : public QDialog {
    Q_OBJECT
public:
    // `keptFromMs`..`keptToMs`: what can be shown; `initial`: the range the fields start with.
    TimeRangeDialog(qint64 keptFromMs, qint64 keptToMs, std::pair<qint64, qint64> initial, QWidget *parent = nullptr);

    // The range chosen, ms since the epoch.
    std::pair<qint64, qint64> range() const;

private:
    void check();

    QDateTimeEdit *m_from;
    QDateTimeEdit *m_to;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
};

} // namespace sluice::ui
