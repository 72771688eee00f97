// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_commands.h"

#include <QCoreApplication>

namespace sluice::app {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("sluicectl", text);
}

const QStringList fireOptions{QStringLiteral("subject"),     QStringLiteral("subjects"), QStringLiteral("random"),
                              QStringLiteral("real-keys"),   QStringLiteral("seed"),     QStringLiteral("csv"),
                              QStringLiteral("concurrency"), QStringLiteral("duration"), QStringLiteral("cost"),
                              QStringLiteral("json")};

std::vector<CtlCommand> makeCommands()
{
    const auto list = [](std::initializer_list<const char *> names) {
        QStringList result;
        for (const char *name : names)
            result << QLatin1String(name);
        return result;
    };
    return {
        {QStringLiteral("apply"),
         CommandGroup::Policies,
         1,
         1,
         Access::WritesUnlessDryRun,
         QStringLiteral("FILE"),
         tr("make the stored policies match a policy file, or change nothing"),
         tr("Make the stored policies match a JSON policy file in one atomic commit, or change nothing when another "
            "change came in between (exit 6). With --prune, stored policies the file lacks are deleted. --dry-run "
            "prints each field's old and new value and exits 10 when changes are pending."),
         list({"dry-run", "prune", "json"}),
         {{QStringLiteral("apply policies.json --dry-run"), tr("show what would change, field by field")},
          {QStringLiteral("apply policies.json --prune"), tr("make the store equal the file, deleting the rest")},
          {QStringLiteral("--profile prod --yes apply policies.json"), tr("apply through a production profile")}},
         runApply},
        {QStringLiteral("policies"),
         CommandGroup::Policies,
         0,
         0,
         Access::Reads,
         QString(),
         tr("list the stored policies"),
         tr("List the stored policies with their version; damaged ones are listed apart with what is wrong."),
         list({"json"}),
         {{QStringLiteral("policies"), tr("a table of the stored policies")},
          {QStringLiteral("--namespace teamb policies --json"), tr("another namespace's policies, as JSON")}},
         runPolicies},
        {QStringLiteral("export"),
         CommandGroup::Policies,
         0,
         1,
         Access::Reads,
         QStringLiteral("[FILE]"),
         tr("write the stored policies as a policy file"),
         tr("Write the stored policies as a policy file that apply takes back; to FILE (whole or not at all), or to "
            "standard output."),
         {},
         {{QStringLiteral("export backup.json"), tr("a backup to restore with apply")},
          {QStringLiteral("export | jq '.policies[].name'"), tr("the names, through jq")}},
         runExport},
        {QStringLiteral("history"),
         CommandGroup::Policies,
         0,
         1,
         Access::Reads,
         QStringLiteral("[POLICY]"),
         tr("show who changed what, and when"),
         tr("Show the audit log (who changed what, when), newest first."),
         list({"json"}),
         {{QStringLiteral("history"), tr("every change, newest first")},
          {QStringLiteral("history login --json"), tr("one policy's changes, as JSON")}},
         runHistory},
        {QStringLiteral("rollback"),
         CommandGroup::Policies,
         2,
         2,
         Access::WritesUnlessDryRun,
         QStringLiteral("POLICY VERSION"),
         tr("save an earlier version as the policy's new version"),
         tr("Save an earlier version's definition as the policy's new version (audited). Publish afterwards for "
            "services to see it."),
         list({"dry-run"}),
         {{QStringLiteral("rollback login 3 --dry-run"), tr("show what version 3 would change")},
          {QStringLiteral("rollback login 3"), tr("bring version 3's definition back")}},
         runRollback},
        {QStringLiteral("publish"),
         CommandGroup::Deployment,
         0,
         0,
         Access::WritesUnlessDryRun,
         QString(),
         tr("load the policies' limiter library on every primary"),
         tr("Compile the stored policies into the namespace's limiter library and load it on every primary. Refuses "
            "a library that serves no policy, drops policies in use or replaces a library it did not publish, "
            "unless allowed (exit 8)."),
         list({"dry-run", "allow-empty", "allow-drop", "take-over", "json"}),
         {{QStringLiteral("publish --dry-run"),
           tr("show what a publish would change against the published version, field by field (--json adds "
              "the generated policy table)")},
          {QStringLiteral("publish"), tr("load it on every primary")},
          {QStringLiteral("publish --take-over"), tr("replace a library another owner published")}},
         runPublish},
        {QStringLiteral("status"),
         CommandGroup::Deployment,
         0,
         0,
         Access::Reads,
         QString(),
         tr("show each primary's library and drift"),
         tr("Show each primary's limiter libraries and whether they run the published one; exit 7 on drift."),
         list({"json"}),
         {{QStringLiteral("status"), tr("each primary's library, current or not")},
          {QStringLiteral("status --json"), tr("the same as JSON, for monitoring")}},
         runStatus},
        {QStringLiteral("acl"),
         CommandGroup::Deployment,
         1,
         1,
         Access::Offline,
         QStringLiteral("service|dashboard|operator"),
         tr("print a least-privilege Redis user"),
         tr("Print the ACL SETUSER line of a least-privilege Redis user for the namespace: a service calling the "
            "limiter, the read-only dashboard, or an operator who applies and publishes. Sends nothing."),
         {},
         {{QStringLiteral("acl service --user checkout"), tr("a user for a service that calls the limiter")},
          {QStringLiteral("acl dashboard --namespace teamb -n 1"), tr("a read-only user for teamb in database 1")}},
         runAcl},
        {QStringLiteral("watch"),
         CommandGroup::Live,
         0,
         64,
         Access::Reads,
         QStringLiteral("[POLICY...]"),
         tr("show allowed and rejected calls per second, live"),
         tr("Show each policy's allowed and rejected decisions per second, live, most rejections first. --json "
            "prints one object per policy per sample."),
         list({"interval", "duration", "json"}),
         {{QStringLiteral("watch"), tr("every policy, once a second, until interrupted")},
          {QStringLiteral("watch login --interval 250 --duration 30 --json"), tr("one policy, as JSON lines")}},
         runWatch},
        {QStringLiteral("metrics"),
         CommandGroup::Live,
         0,
         1,
         Access::Reads,
         QStringLiteral("[serve]"),
         tr("expose the limiter's counts to Prometheus"),
         tr("Print the namespace's metrics once in the Prometheus text format (for node_exporter's textfile "
            "collector), or with serve answer Prometheus scrapes over HTTP until interrupted: per policy its allowed "
            "and rejected totals and its limit, per primary its library state. Reads only; docs/monitoring.md lists "
            "the metrics."),
         list({"listen", "top"}),
         {{QStringLiteral("metrics"), tr("one exposition on stdout")},
          {QStringLiteral("--profile prod metrics serve --listen 127.0.0.1:9786"), tr("an exporter for Prometheus")},
          {QStringLiteral("metrics serve --top 10"), tr("with each policy's ten most rejected subjects")}},
         runMetrics},
        {QStringLiteral("keys"),
         CommandGroup::Live,
         0,
         1,
         Access::Reads,
         QStringLiteral("[POLICY]"),
         tr("list bucket keys and their state"),
         tr("List bucket keys and their state (SCAN on every primary, a bounded page at a time); --json prints one "
            "object per bucket; --layout lists a seed layout's buckets instead, refilled to now when its callers' "
            "parameters are given."),
         list({"match", "limit", "layout", "json"}),
         {{QStringLiteral("keys login --match 'user:*' --limit 50"), tr("fifty of login's buckets")},
          {QStringLiteral("keys --layout scg:10:20"), tr("Spring Cloud Gateway buckets, refilled to now")}},
         runKeys},
        {QStringLiteral("reset-key"),
         CommandGroup::Live,
         2,
         2,
         Access::Writes,
         QStringLiteral("POLICY SUBJECT"),
         tr("empty one subject's bucket"),
         tr("Delete one subject's bucket so it is full again (audited)."),
         {},
         {{QStringLiteral("reset-key login alice"), tr("let alice in again at once")}},
         runResetKey},
        {QStringLiteral("acquire"),
         CommandGroup::TestTraffic,
         2,
         2,
         Access::Writes,
         QStringLiteral("POLICY SUBJECT"),
         tr("take one decision and print it"),
         tr("Take one decision from a policy for a subject, as a service would, and print it; exit 11 when it is a "
            "rejection."),
         list({"cost", "json"}),
         {{QStringLiteral("acquire login alice"), tr("one call for alice")},
          {QStringLiteral("acquire upload alice --cost 5 --json"), tr("a call of cost 5, as JSON")}},
         runAcquire},
        {QStringLiteral("fire"),
         CommandGroup::TestTraffic,
         1,
         2,
         Access::FiresTraffic,
         QStringLiteral("TARGET [TARGET2]"),
         tr("fire test traffic and compare it with the model"),
         tr("Fire test traffic at a policy (or a seed script, e.g. scg_token_bucket:10:20), two side by side; "
            "compare what passed with the reference model; latency percentiles."),
         list({"rate", "shape", "burst", "every", "ramp-to", "clock-skew"}) + fireOptions,
         {{QStringLiteral("fire login --rate 50 --duration 20"), tr("50 calls a second for 20 s at one subject")},
          {QStringLiteral("fire login scg_token_bucket:10:20 --rate 30 --random 100"),
           tr("a policy beside a seed script, random subjects")},
          {QStringLiteral("fire login --shape bursts --burst 40 --every 2000 --csv run.csv"),
           tr("bursts, with the curves in a CSV file")}},
         runFire},
        {QStringLiteral("bench"),
         CommandGroup::TestTraffic,
         1,
         1,
         Access::FiresTraffic,
         QStringLiteral("TARGET"),
         tr("measure the most calls a second the server answers"),
         tr("Measure the most calls a second the server answers (pipelined, several connections), with latency "
            "percentiles."),
         fireOptions + list({"pipeline"}),
         {{QStringLiteral("bench login"), tr("4 connections, 16 calls in flight each, 10 s")},
          {QStringLiteral("bench login --concurrency 8 --pipeline 32 --random 100000"),
           tr("more load over many subjects")}},
         runBench},
        {QStringLiteral("ping"),
         CommandGroup::Connection,
         0,
         0,
         Access::Reads,
         QString(),
         tr("check that the server answers"),
         tr("Check that the server answers; print its version and mode."),
         {},
         {{QStringLiteral("ping"), tr("the server at 127.0.0.1:6379")},
          {QStringLiteral("-u rediss://redis.example:6380 --cacert ca.pem ping"), tr("a TLS server")}},
         runPing},
        {QStringLiteral("profiles"),
         CommandGroup::Connection,
         0,
         0,
         Access::Offline,
         QString(),
         tr("list the dashboard's connection profiles"),
         tr("List the connection profiles saved by the dashboard, for --profile."),
         list({"json"}),
         {{QStringLiteral("profiles"), tr("the profiles --profile can name")}},
         runProfiles},
        {QStringLiteral("help"),
         CommandGroup::Help,
         0,
         1,
         Access::Offline,
         QStringLiteral("[COMMAND]"),
         tr("show this help, or a command's"),
         tr("Show sluicectl's help, or a command's: its options and examples. --commands and --options COMMAND "
            "print names one a line, for shell completion."),
         list({"commands", "options"}),
         {{QStringLiteral("help apply"), tr("apply's options and examples")},
          {QStringLiteral("help --options fire"), tr("the option names fire takes")}}},
    };
}

} // namespace

const std::vector<CtlCommand> &ctlCommands()
{
    static const std::vector<CtlCommand> commands = makeCommands();
    return commands;
}

const CtlCommand *findCtlCommand(const QString &name)
{
    for (const CtlCommand &command : ctlCommands())
        if (command.name == name)
            return &command;
    return nullptr;
}

QString groupTitle(CommandGroup group)
{
    switch (group) {
    case CommandGroup::Policies: return tr("Policies");
    case CommandGroup::Deployment: return tr("Deployment");
    case CommandGroup::Live: return tr("Live");
    case CommandGroup::TestTraffic: return tr("Test traffic");
    case CommandGroup::Connection: return tr("Connection");
    case CommandGroup::Help: break;
    }
    return tr("Help");
}

} // namespace sluice::app
