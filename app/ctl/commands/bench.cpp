// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl bench: the most calls a second the server answers.

#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_fire_run.h"

namespace sluice::app {

namespace {

void runBench(const CtlRequest &request)
{
    fireTraffic(request, true);
}

} // namespace

CtlCommand benchCommand()
{
    return {QStringLiteral("bench"),
            CommandGroup::TestTraffic,
            1,
            1,
            Access::FiresTraffic,
            QStringLiteral("TARGET"),
            Ctl::tr("measure the most calls a second the server answers"),
            Ctl::tr("Measure the most calls a second the server answers (pipelined, several connections), with latency "
                    "percentiles."),
            fireOptionNames() + optionNames({"pipeline"}),
            {{QStringLiteral("bench login"), Ctl::tr("4 connections, 16 calls in flight each, 10 s")},
             {QStringLiteral("bench login --concurrency 8 --pipeline 32 --random 100000"),
              Ctl::tr("more load over many subjects")}},
            runBench};
}

} // namespace sluice::app
