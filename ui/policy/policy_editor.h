// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/connection/connection_session.h"
#include "model/policy/policy.h"
#include "ui/widgets/state_palette.h"

#include <QDialog>
#include <QPointer>

#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace sluice::ui {

class SubjectRulesTable;

// Creates or edits one policy. The fields follow the algorithm, every field is checked as it is
// typed (the reason beside it, Save disabled while anything is wrong), a linter and a plain
// summary sit under the form. Saving shows the diff first, passes the write gate, and commits on
// the version the editor started from; when someone saved in between, a conflict dialog offers
// reload, overwrite or keep editing.
class PolicyEditor : public QDialog {
    Q_OBJECT
public:
    // existing: the stored policy to edit; none for a new one. existingNames: taken names (a new
    // policy or a rename must not reuse one).
    PolicyEditor(model::ConnectionSession *session, const std::optional<model::Policy> &existing,
                 const QStringList &existingNames, QWidget *parent = nullptr);

    // What the form holds, or nullopt while anything in it is wrong.
    std::optional<model::Policy> formPolicy() const;

    // Starts the save (diff, gate, commit); what the Save button does.
    void save();
    // Fills the form with `policy` (a limit chosen elsewhere), keeping the stored version it edits.
    void propose(const model::Policy &policy);
    // Escape, Cancel and the window's close: a form that differs from what was loaded asks first
    // (Discard or Cancel, Cancel the default), so an edit is never dropped by a stray key.
    void reject() override;

Q_SIGNALS:
    void saved(const QString &name);

private:
    QFormLayout *createFields();
    struct FieldErrors {
        QString name, limit, window, burst, calendar, shadowOf, penalty, debt, reserve, overrides, spread, description;
        bool any() const;
    };

    void loadPolicy(const model::Policy &policy);
    void algorithmChanged();
    void revalidate();
    std::optional<model::Policy> readForm(FieldErrors *errors) const;
    void commit(const model::Policy &policy);
    void showConflict(const model::Policy &mine);
    void setSaveError(const QString &message, Tone tone = Tone::Error);
    // Every field as typed (the overrides as read), to tell whether the form still holds what was loaded.
    QStringList fieldState() const;

    QPointer<model::ConnectionSession> m_session;
    std::optional<model::Policy> m_base; // the stored version this edit started from
    QStringList m_takenNames;
    bool m_writable = true;
    QStringList m_loadedState; // fieldState() once the stored version (or a new policy's defaults) was loaded

    QLineEdit *m_name;
    QComboBox *m_algorithm;
    QLabel *m_algorithmHelp;
    QLabel *m_limitLabel;
    QLineEdit *m_limit;
    QLabel *m_windowLabel;
    QLineEdit *m_windowCount;
    QComboBox *m_windowUnit;
    QLabel *m_burstLabel;
    QLineEdit *m_burst;
    QWidget *m_burstRow;
    QLabel *m_windowStartLabel;
    QComboBox *m_windowStart; // aligned, first call, or a calendar (its data: the stored spelling)
    QLabel *m_calendarLabel;
    QWidget *m_calendarRow;
    QLineEdit *m_utcOffset; // "+05:30"
    QLabel *m_anchorLabel;
    QSpinBox *m_anchorDay;
    QCheckBox *m_shadow;
    QLabel *m_shadowOfLabel;
    QComboBox *m_shadowOf;     // "none", then the other policies' names
    QLineEdit *m_penaltyCount; // block_ms in the unit beside it; empty for no penalty
    QComboBox *m_penaltyUnit;
    QLabel *m_debtLabel;
    QLineEdit *m_debt;         // max_debt; empty for none (token_bucket and gcra only)
    QLineEdit *m_reserveCount; // reserve_timeout_ms in the unit beside it; empty for the window
    QComboBox *m_reserveUnit;
    QWidget *m_debtRow;
    QLineEdit *m_spread; // spread: a hot subject's buckets; empty (or 1) for one
    QTabWidget *m_tabs;
    SubjectRulesTable *m_overrides;
    QLineEdit *m_description;
    QSpinBox *m_typicalCost;
    QLabel *m_nameError, *m_limitError, *m_windowError, *m_burstError, *m_calendarError, *m_shadowOfError,
        *m_penaltyError, *m_debtError, *m_spreadError, *m_descriptionError;
    QLabel *m_summary;
    QLabel *m_lint;
    QPushButton *m_useSlidingWindow;
    QLabel *m_saveStatus;
    QPushButton *m_saveButton;
};

} // namespace sluice::ui
