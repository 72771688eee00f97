// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>

#include <algorithm>

namespace sluice::model {

// A fixed-capacity ring: once full, each append drops the oldest item. Memory grows with the items
// held (doubling), never past the capacity.
template <typename T> class BoundedRing {
public:
    explicit BoundedRing(int capacity = 0)
        : m_capacity(capacity)
    {
    }

    void append(const T &item)
    {
        if (m_capacity <= 0)
            return;
        if (m_items.size() < m_capacity) {
            if (m_items.size() == m_items.capacity())
                m_items.reserve(std::min<qsizetype>(std::max<qsizetype>(16, 2 * m_items.size()), m_capacity));
            m_items.append(item);
            return;
        }
        m_items[m_head] = item;
        m_head = (m_head + 1) % m_capacity;
    }
    int size() const { return int(m_items.size()); }
    int capacity() const { return m_capacity; }
    bool isEmpty() const { return m_items.isEmpty(); }
    // Oldest first.
    const T &at(int index) const { return m_items.at((m_head + index) % m_items.size()); }
    const T &last() const { return at(size() - 1); }
    void clear()
    {
        m_items.clear();
        m_items.squeeze();
        m_head = 0;
    }
    qint64 bytes() const { return m_items.capacity() * qint64(sizeof(T)); }

private:
    int m_capacity;
    int m_head = 0; // index of the oldest item once the ring is full
    QVector<T> m_items;
};

} // namespace sluice::model
