// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_nodes.h"

#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/monitor/eviction_risk.h"

#include <QDateTime>
#include <QJsonObject>

namespace sluice::app {

using model::NodeLibrary;

QString persistenceName(NodeLibrary::Persistence persistence)
{
    switch (persistence) {
    case NodeLibrary::Persistence::Persisted: return Ctl::tr("yes");
    case NodeLibrary::Persistence::None: return Ctl::tr("NONE");
    case NodeLibrary::Persistence::Unknown: break;
    }
    return Ctl::tr("unknown");
}

void printNodes(const QVector<NodeLibrary> &nodes)
{
    const TextTable table({{"NODE", -21}, {"STATE", -11}, {"VERSION", 7}, {"DIGEST", -16}, {"PERSISTED", 0}}, 2);
    ctlOut() << table.header() << Qt::endl;
    for (const NodeLibrary &node : nodes) {
        ctlOut() << table.row({node.node, NodeLibrary::stateName(node.state),
                               node.version > 0 ? QString::number(node.version) : QStringLiteral("-"),
                               node.digest.isEmpty() ? QStringLiteral("-") : QString::fromLatin1(node.digest),
                               persistenceName(node.persistence)})
                 << Qt::endl;
        if (!node.detail.isEmpty() && node.state != NodeLibrary::State::Current)
            ctlOut() << "    " << node.detail << Qt::endl;
        for (const model::LoadedLibrary &library : node.libraries)
            ctlOut() << "    " << Ctl::tr("library %1").arg(library.describe()) << Qt::endl;
    }
    for (const NodeLibrary &node : nodes) {
        if (node.persistence == NodeLibrary::Persistence::None)
            ctlErr() << Ctl::tr(
                            "sluicectl: warning: %1 persists nothing (no save points, no append-only file): a restart "
                            "loses the library and every bucket, so every subject gets its full limit again at once "
                            "(and calls fail until the library is published again); turn on appendonly yes (or save "
                            "points) to keep them")
                            .arg(node.node)
                     << Qt::endl;
        for (const QString &warning : model::evictionWarnings(node.maxmemoryPolicy, node.evictedKeys))
            ctlErr() << Ctl::tr("sluicectl: warning: %1: %2").arg(node.node, warning) << Qt::endl;
    }
}

// --json's words for what the server may evict: none, buckets, everything or unknown.
static QString evictionRiskName(model::EvictionRisk risk)
{
    switch (risk) {
    case model::EvictionRisk::None: return QStringLiteral("none");
    case model::EvictionRisk::Buckets: return QStringLiteral("buckets");
    case model::EvictionRisk::Everything: return QStringLiteral("everything");
    case model::EvictionRisk::Unknown: break;
    }
    return QStringLiteral("unknown");
}

QString historyName(model::DeploymentStatus::History history)
{
    switch (history) {
    case model::DeploymentStatus::History::Published: return QStringLiteral("published");
    case model::DeploymentStatus::History::NeverPublished: return QStringLiteral("never_published");
    case model::DeploymentStatus::History::DataLost: return QStringLiteral("data_lost");
    }
    return {};
}

QJsonArray librariesToJson(const QVector<model::LoadedLibrary> &libraries)
{
    QJsonArray list;
    for (const model::LoadedLibrary &library : libraries) {
        QJsonValue owner;
        if (library.owner)
            owner = QJsonObject{{QStringLiteral("namespace"), library.owner->ns},
                                {QStringLiteral("database"), library.owner->database},
                                {QStringLiteral("version"), static_cast<double>(library.version)}};
        list.append(
            QJsonObject{{QStringLiteral("name"), QString::fromLatin1(library.name)}, {QStringLiteral("owner"), owner}});
    }
    return list;
}

QJsonArray nodesToJson(const QVector<NodeLibrary> &nodes)
{
    QJsonArray list;
    for (const NodeLibrary &node : nodes)
        list.append(QJsonObject{
            {QStringLiteral("node"), node.node},
            {QStringLiteral("state"), NodeLibrary::stateName(node.state)},
            {QStringLiteral("version"), static_cast<double>(node.version)},
            {QStringLiteral("digest"), QString::fromLatin1(node.digest)},
            {QStringLiteral("detail"), node.detail},
            {QStringLiteral("persisted"), persistenceName(node.persistence)},
            {QStringLiteral("maxmemory_policy"), node.maxmemoryPolicy},
            {QStringLiteral("eviction_risk"), evictionRiskName(model::evictionRiskOf(node.maxmemoryPolicy))},
            {QStringLiteral("evicted_keys"), static_cast<double>(node.evictedKeys)},
            {QStringLiteral("libraries"), librariesToJson(node.libraries)}});
    return list;
}

} // namespace sluice::app
