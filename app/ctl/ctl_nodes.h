// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "model/deploy/library_publisher.h"

#include <QJsonArray>

// What publish and status share: each primary's library, as lines or as JSON.
namespace sluice::app {

QString persistenceName(model::NodeLibrary::Persistence persistence);
void printNodes(const QVector<model::NodeLibrary> &nodes);
QString historyName(model::DeploymentStatus::History history);
QJsonArray librariesToJson(const QVector<model::LoadedLibrary> &libraries);
QJsonArray nodesToJson(const QVector<model::NodeLibrary> &nodes);

} // namespace sluice::app
