// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/metrics/counter_carry.h"

namespace sluice::model {

namespace {

void addInto(PolicyTotals *into, const PolicyTotals &totals)
{
    for (auto it = totals.cbegin(); it != totals.cend(); ++it)
        (*into)[it.key()] += it.value();
}

// A reading of the same epoch whose count went down for some policy is a new epoch all the same (a
// clock that did not move between a reload and its first call would otherwise hide the reload).
bool startsNewEpoch(const CounterCarry::Reading &last, const CounterCarry::Reading &now)
{
    if (now.epochMs != last.epochMs)
        return true;
    for (auto it = last.totals.cbegin(); it != last.totals.cend(); ++it) {
        if (now.totals.value(it.key()).anyBelow(*it))
            return true;
    }
    return false;
}

} // namespace

std::optional<PolicyTotals> CounterCarry::update(const QStringList &primaries, const QHash<QString, Reading> &readings)
{
    for (auto it = m_primaries.begin(); it != m_primaries.end();) {
        if (primaries.contains(it.key())) {
            ++it;
            continue;
        }
        addInto(&m_departed, it->carried);
        addInto(&m_departed, it->last.totals);
        it = m_primaries.erase(it);
    }
    bool complete = !primaries.isEmpty();
    for (const QString &node : primaries) {
        const auto reading = readings.constFind(node);
        if (reading == readings.cend()) {
            complete = false; // kept as it was: its next reading continues from there
            continue;
        }
        auto known = m_primaries.find(node);
        if (known == m_primaries.end()) {
            m_primaries.insert(node, {*reading, {}});
            continue;
        }
        if (startsNewEpoch(known->last, *reading)) {
            addInto(&known->carried, known->last.totals);
            ++m_resets;
        }
        known->last = *reading;
    }
    if (!complete)
        return std::nullopt;
    PolicyTotals sums = m_departed;
    for (const Primary &primary : qAsConst(m_primaries)) {
        addInto(&sums, primary.carried);
        addInto(&sums, primary.last.totals);
    }
    return sums;
}

} // namespace sluice::model
