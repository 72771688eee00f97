// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <vector>

namespace sluice::model {

// Every distinct subject of a replay, numbered 0, 1, 2... in order of first appearance. Subjects are
// kept as bytes in one arena with an open-addressed table of numbers, 16 to 24 bytes a subject
// beside its text, so ten million client addresses fit in about 400 MB.
class SubjectTable {
public:
    static constexpr quint32 kNone = 0xffffffff;

    // The subject's number, adding it when new; kNone when the table already holds `capacity` subjects.
    quint32 intern(QByteArrayView subject);
    QByteArray subject(quint32 number) const;
    quint32 size() const { return quint32(m_offsets.size()); }
    void setCapacity(quint32 capacity) { m_capacity = capacity; }
    quint32 capacity() const { return m_capacity; }

private:
    QByteArrayView view(quint32 number) const;
    void grow();

    std::vector<char> m_arena;      // each subject's bytes, one after another
    std::vector<quint64> m_offsets; // where each subject starts in the arena; it ends where the next starts
    std::vector<quint32> m_slots;   // subject number + 1, or 0 for an empty slot
    quint32 m_capacity = 10'000'000;
};

} // namespace sluice::model
