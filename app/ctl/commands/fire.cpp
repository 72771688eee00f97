// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl fire: test traffic at one or two targets, beside the reference model.

#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_fire_run.h"

namespace sluice::app {

namespace {

void runFire(const CtlRequest &request)
{
    fireTraffic(request, false);
}

} // namespace

CtlCommand fireCommand()
{
    return {
        QStringLiteral("fire"),
        CommandGroup::TestTraffic,
        1,
        2,
        Access::FiresTraffic,
        QStringLiteral("TARGET [TARGET2]"),
        Ctl::tr("fire test traffic and compare it with the model"),
        Ctl::tr("Fire test traffic at a policy (or a seed script, e.g. scg_token_bucket:10:20), two side by side; "
                "compare what passed with the reference model; latency percentiles."),
        optionNames({"rate", "shape", "burst", "every", "ramp-to", "clock-skew", "actual", "settle-after"})
            + fireOptionNames(),
        {{QStringLiteral("fire login --rate 50 --duration 20"), Ctl::tr("50 calls a second for 20 s at one subject")},
         {QStringLiteral("fire login scg_token_bucket:10:20 --rate 30 --random 100"),
          Ctl::tr("a policy beside a seed script, random subjects")},
         {QStringLiteral("fire login --shape bursts --burst 40 --every 2000 --csv run.csv"),
          Ctl::tr("bursts, with the curves in a CSV file")},
         {QStringLiteral("fire llm --real-keys --rate 5 --cost 4000 --actual 500-6000 --settle-after 2000"),
          Ctl::tr("reserve 4,000 tokens a call, settle 2 s later with what it used")}},
        runFire};
}

} // namespace sluice::app
