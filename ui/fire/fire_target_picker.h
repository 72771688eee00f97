// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/fire/fire_target.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QSpinBox;

namespace sluice::ui {

// Chooses what test-fire calls: one of the stored policies, or a seed layout's script with its
// parameters (rate and capacity; limit and window; capacity, batch and interval; the clock skew of
// the buckets that read their callers' clocks). The second picker of a side-by-side run also offers
// "nothing".
class FireTargetPicker : public QWidget {
    Q_OBJECT
public:
    // Child widgets are named `name` + Choice, First, Second, Third, Skew (for tests and screenshots).
    FireTargetPicker(const QString &name, bool optional, QWidget *parent = nullptr);

    // The stored policies to offer; the choice is kept when its policy is still there.
    // The stored policies to choose from, and the namespace's lists their targets carry.
    void setPolicies(const QVector<model::Policy> &policies, const QVector<model::SubjectOverride> &lists = {});
    // What is chosen; nullopt for "nothing".
    std::optional<model::FireTarget> target() const;
    // Chooses the policy `name`, or the seed script named as seedLayoutName() says.
    bool choose(const QString &name);

Q_SIGNALS:
    void changed();

private:
    void showParameters();
    std::optional<model::SeedLayout> chosenLayout() const; // nullopt for a policy or nothing

    bool m_optional;
    bool m_chosen = false; // by the operator (or choose())
    QVector<model::Policy> m_policies;
    QVector<model::SubjectOverride> m_lists;
    QComboBox *m_choice;
    QLabel *m_firstLabel;
    QSpinBox *m_first;
    QLabel *m_secondLabel;
    QSpinBox *m_second;
    QLabel *m_thirdLabel;
    QSpinBox *m_third;
    QLabel *m_skewLabel;
    QSpinBox *m_skew;
};

} // namespace sluice::ui
