// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/replay/subject_table.h"

#include <QHashFunctions>

namespace sluice::model {

QByteArrayView SubjectTable::view(quint32 number) const
{
    const quint64 begin = m_offsets[number];
    const quint64 end = number + 1 < m_offsets.size() ? m_offsets[number + 1] : m_arena.size();
    return QByteArrayView(m_arena.data() + begin, qsizetype(end - begin));
}

QByteArray SubjectTable::subject(quint32 number) const
{
    return view(number).toByteArray();
}

quint32 SubjectTable::intern(QByteArrayView subject)
{
    if (m_slots.size() < 2 * (m_offsets.size() + 1))
        grow();
    const size_t mask = m_slots.size() - 1;
    for (size_t slot = qHash(subject) & mask;; slot = (slot + 1) & mask) {
        const quint32 held = m_slots[slot];
        if (held == 0) {
            if (m_offsets.size() >= m_capacity)
                return kNone;
            m_offsets.push_back(m_arena.size());
            m_arena.insert(m_arena.end(), subject.begin(), subject.end());
            m_slots[slot] = quint32(m_offsets.size());
            return quint32(m_offsets.size() - 1);
        }
        if (view(held - 1) == subject)
            return held - 1;
    }
}

// Doubles the table (a power of two, kept at most half full) and places every subject again.
void SubjectTable::grow()
{
    std::vector<quint32> slots(std::max<size_t>(1024, m_slots.size() * 2), 0);
    const size_t mask = slots.size() - 1;
    for (quint32 number = 0; number < m_offsets.size(); ++number) {
        size_t slot = qHash(view(number)) & mask;
        while (slots[slot] != 0)
            slot = (slot + 1) & mask;
        slots[slot] = number + 1;
    }
    m_slots.swap(slots);
}

} // namespace sluice::model
