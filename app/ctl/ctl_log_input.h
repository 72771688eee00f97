// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/ctl/ctl_request.h"
#include "model/replay/replay_job.h"

#include <QJsonObject>

#include <functional>
#include <memory>
#include <optional>

// What replay and suggest share: reading the log options, running a replay a slice at a time, and
// saying what was read.
namespace sluice::app {

// The logs and how to read them, from the command's arguments and options; none and the problem
// (a usage error) when an option is wrong.
std::optional<model::ReplayRequest> readReplayRequest(const CtlRequest &request, QString *problem);
// Opens the logs and replays them to the end, a slice at a time so that signals still end the
// command, then calls `done`; a log that cannot be read, or that has no line to replay, fails the
// command instead (exit 5).
void runReplay(const CtlRequest &request, const std::shared_ptr<model::ReplayJob> &job, std::function<void()> done);
// "read 1,000 lines from 2 logs: ..." and the malformed lines, on stderr for --json and stdout otherwise.
void printReadSummary(const CtlRequest &request, const model::LogReadStats &stats, quint32 subjects);
// The fields of the read summary that --json carries.
QJsonObject readSummaryJson(const model::LogReadStats &stats, quint32 subjects);

} // namespace sluice::app
