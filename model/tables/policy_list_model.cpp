// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/tables/policy_list_model.h"

#include "model/policy/policy_summary.h"

#include <QDateTime>

#include <algorithm>

namespace sluice::model {

PolicyListModel::PolicyListModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

bool PolicyListModel::sameRow(const Policy &a, const Policy &b)
{
    return a.sameDefinition(b) && a.version == b.version && a.updatedAtMs == b.updatedAtMs
        && a.updatedBy == b.updatedBy;
}

void PolicyListModel::setPolicies(QVector<Policy> incoming)
{
    std::sort(incoming.begin(), incoming.end(), [](const Policy &a, const Policy &b) { return a.name < b.name; });
    int row = 0;
    qsizetype next = 0;
    while (row < m_policies.size() || next < incoming.size()) {
        const bool rowsLeft = row < m_policies.size();
        const bool incomingLeft = next < incoming.size();
        if (!incomingLeft || (rowsLeft && m_policies.at(row).name < incoming.at(next).name)) {
            beginRemoveRows({}, row, row);
            m_policies.remove(row);
            endRemoveRows();
        } else if (!rowsLeft || incoming.at(next).name < m_policies.at(row).name) {
            beginInsertRows({}, row, row);
            m_policies.insert(row, incoming.at(next));
            endInsertRows();
            ++row;
            ++next;
        } else {
            if (!sameRow(m_policies.at(row), incoming.at(next))) {
                m_policies[row] = incoming.at(next);
                Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
            }
            ++row;
            ++next;
        }
    }
}

void PolicyListModel::setPublished(const QVector<Policy> &published, bool known)
{
    // The library watch reports every few seconds; a view re-measures its rows at each change.
    const bool unchanged = known == m_publishedKnown && published.size() == m_published.size()
        && std::equal(published.cbegin(), published.cend(), m_published.cbegin(),
                      [](const Policy &a, const Policy &b) { return a.name == b.name && a.sameDefinition(b); });
    if (unchanged)
        return;
    m_published = published;
    m_publishedKnown = known;
    if (!m_policies.isEmpty())
        Q_EMIT dataChanged(index(0, Published), index(rowCount() - 1, Published));
}

std::optional<Policy> PolicyListModel::policy(const QString &name) const
{
    for (const Policy &policy : m_policies)
        if (policy.name == name)
            return policy;
    return std::nullopt;
}

PolicyListModel::PublishState PolicyListModel::publishState(int row) const
{
    if (!m_publishedKnown)
        return PublishState::Unknown;
    const Policy &stored = m_policies.at(row);
    for (const Policy &published : m_published)
        if (published.name == stored.name)
            return published.sameDefinition(stored) ? PublishState::Published : PublishState::ChangedSincePublish;
    return PublishState::NotPublished;
}

int PolicyListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_policies.size());
}

int PolicyListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PolicyListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Policy &policy = m_policies.at(index.row());
    if (role == NameRole)
        return policy.name;
    if (role == PublishStateRole)
        return static_cast<int>(publishState(index.row()));
    if (role == Qt::ToolTipRole)
        return policy.description.isEmpty() ? describePolicy(policy)
                                            : policy.description + QLatin1Char('\n') + describePolicy(policy);
    if (role == Qt::TextAlignmentRole) {
        const bool number = index.column() == Limit || index.column() == Burst || index.column() == Version;
        return QVariant::fromValue(
            Qt::Alignment(number ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (static_cast<Column>(index.column())) {
    case Name: return policy.name;
    case AlgorithmColumn: return algorithmName(policy.algorithm);
    case Limit: return policy.limit;
    case Window:
        if (!display)
            return policy.windowMs;
        return windowInWords(policy);
    case Burst: return policy.effectiveBurst();
    case Shadow: return display ? QVariant(policy.shadow ? tr("would reject") : QString()) : QVariant(policy.shadow);
    case Version: return policy.version;
    case UpdatedBy: return policy.updatedBy;
    case UpdatedAt:
        return display ? QVariant(
                   QDateTime::fromMSecsSinceEpoch(policy.updatedAtMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))
                       : QVariant(policy.updatedAtMs);
    case Published:
        switch (publishState(index.row())) {
        case PublishState::Unknown: return display ? tr("?") : QVariant(0);
        case PublishState::Published: return display ? tr("yes") : QVariant(3);
        case PublishState::ChangedSincePublish: return display ? tr("changed") : QVariant(2);
        case PublishState::NotPublished: return display ? tr("no") : QVariant(1);
        }
        break;
    case Description: return policy.description;
    case ColumnCount: break;
    }
    return {};
}

QVariant PolicyListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Name: return tr("Name");
    case AlgorithmColumn: return tr("Algorithm");
    case Limit: return tr("Limit");
    case Window: return tr("Window");
    case Burst: return tr("Burst");
    case Shadow: return tr("Shadow");
    case Version: return tr("Version");
    case UpdatedBy: return tr("Updated by");
    case UpdatedAt: return tr("Updated at");
    case Published: return tr("Published");
    case Description: return tr("Description");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sluice::model
