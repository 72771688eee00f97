// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl keys --layout: the buckets of a seed layout, found by the keys that name them, each refilled to
// now when the parameters its callers use are given.

#include "app/ctl/ctl_seed_keys.h"

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/limiter/seed_bucket.h"
#include "model/monitor/key_scanner.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>

#include <algorithm>
#include <memory>

namespace sluice::app {

namespace {

// A seed layout's buckets: the counter's count, the buckets' tokens.
TextTable seedTable(model::SeedLayout layout)
{
    return TextTable({{"ID", -30},
                      {layout == model::SeedLayout::FixedWindowCounter ? "COUNT" : "TOKENS", 18},
                      {"LAST_REFILL", -24},
                      {"FULL_IN_MS", 12},
                      {"TTL_MS", 12}},
                     1);
}

// --layout's names, and the layouts they stand for.
const std::pair<QLatin1String, model::SeedLayout> layoutNames[]
    = {{QLatin1String("scg"), model::SeedLayout::ScgTokenBucket},
       {QLatin1String("counter"), model::SeedLayout::FixedWindowCounter},
       {QLatin1String("ms"), model::SeedLayout::MsTokenBucket},
       {QLatin1String("interval"), model::SeedLayout::IntervalTokenBucket}};

// A seed layout as --layout names it, with the parameters its callers use when given.
struct LayoutChoice {
    model::SeedLayout layout;
    QString name;
    std::optional<model::SeedParameters> parameters;
};

// --layout NAME[:PARAMETERS]; nullopt with *problem set when it is not one.
std::optional<LayoutChoice> parseLayout(const QString &text, QString *problem)
{
    const QString name = text.section(QLatin1Char(':'), 0, 0);
    QStringList names;
    for (const auto &[candidate, layout] : layoutNames) {
        names << candidate;
        if (name != candidate)
            continue;
        LayoutChoice choice{layout, name, std::nullopt};
        if (name == text)
            return choice;
        choice.parameters = model::parseSeedParameters(layout, text.section(QLatin1Char(':'), 1));
        if (!choice.parameters) {
            *problem = Ctl::tr("--layout %1 takes the parameters its callers use as %1:%2, %3 (got \"%4\")")
                           .arg(name, model::seedParameterForm(layout),
                                layout == model::SeedLayout::ScgTokenBucket
                                    ? Ctl::tr("a rate from 0.001 with up to three decimals and a whole capacity")
                                    : Ctl::tr("whole numbers from 1"),
                                text);
            return std::nullopt;
        }
        return choice;
    }
    *problem = Ctl::tr("--layout must be one of %1, optionally with the layout's parameters (e.g. "
                       "interval:CAPACITY:ADD:INTERVAL_SECONDS), not \"%2\"")
                   .arg(names.join(QStringLiteral(", ")), text);
    return std::nullopt;
}

QString seedLevelText(const model::SeedBucketState &state)
{
    const QString level = QString::number(state.level, 'g', 12);
    if (!state.current)
        return Ctl::tr("%1 (stored)").arg(level);
    return state.capacity >= 0 ? QStringLiteral("%1/%2").arg(level, QString::number(state.capacity, 'g', 12)) : level;
}

void printSeedBucket(const LayoutChoice &choice, const model::FoundBucket &bucket, const model::SeedBucketRead &read,
                     bool json)
{
    const QByteArrayList keys = model::seedKeys(choice.layout, bucket.subject);
    const std::optional<model::SeedBucketState> state = read.outcome == model::SeedBucketRead::Outcome::Read
        ? std::optional(
            model::seedBucketAt(choice.layout, read.reading, QDateTime::currentMSecsSinceEpoch(), choice.parameters))
        : std::nullopt;
    if (json) {
        QJsonArray keyNames;
        for (const QByteArray &key : keys)
            keyNames.append(QString::fromUtf8(key));
        printBucketJson({{QStringLiteral("layout"), model::seedLayoutName(choice.layout)},
                         {QStringLiteral("id"), QString::fromUtf8(bucket.subject)},
                         {QStringLiteral("keys"), keyNames},
                         {QStringLiteral("node"), bucket.node}},
                        state ? std::optional(state->toJson(choice.layout)) : std::nullopt, read.problem);
        return;
    }
    if (!state) {
        ctlOut() << QStringLiteral("%1 ").arg(QString::fromUtf8(bucket.subject), -30)
                 << Ctl::tr("unreadable: %1").arg(read.problem) << Qt::endl;
        return;
    }
    ctlOut() << seedTable(choice.layout)
                    .row({QString::fromUtf8(bucket.subject), seedLevelText(*state),
                          state->lastRefillMs >= 0
                              ? QDateTime::fromMSecsSinceEpoch(state->lastRefillMs, Qt::UTC).toString(Qt::ISODateWithMs)
                              : QStringLiteral("-"),
                          state->fullInMs >= 0 ? QString::number(state->fullInMs) : QStringLiteral("-"),
                          QString::number(state->ttlMs)})
             << Qt::endl;
    if (!state->problem.isEmpty())
        ctlOut() << QStringLiteral("  ") << Ctl::tr("warning: %1").arg(state->problem) << Qt::endl;
}

// SCAN for the keys that name the layout's buckets on every primary; each bucket is read as it is found
// and printed in the order found.
void listSeedBuckets(const CtlRequest &request, const LayoutChoice &choice, int limit)
{
    whenReady(request, [=] {
        auto *scanner = new model::KeyScanner(request.client, request.ns, QCoreApplication::instance());
        if (!request.isSet("json"))
            ctlOut() << seedTable(choice.layout).header() << Qt::endl;
        if (!choice.parameters && choice.layout != model::SeedLayout::FixedWindowCounter)
            ctlErr() << Ctl::tr(
                            "sluicectl: keys: tokens as stored at each bucket's last call: its keys do not hold the "
                            "rate; give it (--layout %1:%2) to see them refilled to now")
                            .arg(choice.name, model::seedParameterForm(choice.layout))
                     << Qt::endl;
        struct Listing {
            QVector<model::FoundBucket> found;
            QVector<std::optional<model::SeedBucketRead>> reads; // in the order found
            int printed = 0;                                     // of found, in order
            int listed = 0;                                      // buckets printed (a key that is not one is left out)
            bool fetching = true;
            bool dropped = false; // found beyond --limit
        };
        auto listing = std::make_shared<Listing>();
        const auto finishOrFetch = [=] {
            const bool reading
                = std::any_of(listing->reads.cbegin(), listing->reads.cend(), [](const auto &read) { return !read; });
            if (listing->fetching || reading)
                return;
            if (listing->listed < limit && !scanner->atEnd()) {
                listing->fetching = true;
                scanner->fetch(limit - listing->listed);
                return;
            }
            const QStringList problems = scanner->problems();
            for (const QString &problem : problems)
                ctlErr() << Ctl::tr("sluicectl: keys: not scanned: %1").arg(problem) << Qt::endl;
            if (listing->dropped || (listing->listed >= limit && !scanner->atEnd()))
                ctlErr() << Ctl::tr("sluicectl: keys: stopped at --limit %1; more buckets may match").arg(limit)
                         << Qt::endl;
            request.finish(problems.isEmpty() ? ExitOk : ExitFailure);
        };
        const auto printReady = [=] {
            using Outcome = model::SeedBucketRead::Outcome;
            for (; listing->printed < listing->reads.size() && listing->reads.at(listing->printed);
                 ++listing->printed) {
                const model::SeedBucketRead &read = *listing->reads.at(listing->printed);
                // Gone since the scan, or (a bare key) not a counter: not a bucket of this layout.
                const bool notABucket = read.outcome == Outcome::Missing
                    || (read.outcome == Outcome::Foreign && choice.layout == model::SeedLayout::FixedWindowCounter);
                if (notABucket)
                    continue;
                if (listing->listed == limit) {
                    listing->dropped = true;
                    continue;
                }
                ++listing->listed;
                printSeedBucket(choice, listing->found.at(listing->printed), read, request.isSet("json"));
            }
        };
        QObject::connect(scanner, &model::KeyScanner::found, scanner, [=](const QVector<model::FoundBucket> &buckets) {
            for (const model::FoundBucket &bucket : buckets) {
                const int slot = int(listing->found.size());
                listing->found.append(bucket);
                listing->reads.append(std::nullopt);
                model::readSeedBucket(request.client, choice.layout, bucket.subject, scanner,
                                      [=](const model::SeedBucketRead &read) {
                    listing->reads[slot] = read;
                    printReady();
                    finishOrFetch();
                });
            }
        });
        QObject::connect(scanner, &model::KeyScanner::fetchDone, scanner, [=] {
            listing->fetching = false;
            finishOrFetch();
        });
        if (const auto refused = scanner->startSeed(choice.layout, request.option("match")))
            return fail(request, *refused);
        scanner->fetch(limit);
    });
}

} // namespace

void runSeedKeys(const CtlRequest &request, int limit)
{
    if (!request.args.isEmpty())
        return failUsage(request, Ctl::tr("--layout lists a seed layout's buckets: it takes no POLICY"));
    QString problem;
    const std::optional<LayoutChoice> choice = parseLayout(request.option("layout"), &problem);
    if (!choice)
        return failUsage(request, problem);
    listSeedBuckets(request, *choice, limit);
}

// reset-key --layout NAME ID: the layout's keys for the id deleted, so its script's next call finds the
// bucket full. Read first, so only a bucket of that layout is deleted (a counter is any bare key holding a
// number, and nothing else). Not audited: the keys and the Redis are the gateway's, not Sluice's.
void runSeedReset(const CtlRequest &request)
{
    QString problem;
    const std::optional<LayoutChoice> choice = parseLayout(request.option("layout"), &problem);
    if (!choice)
        return failUsage(request, problem);
    if (request.args.size() != 1)
        return failUsage(request, Ctl::tr("reset-key --layout takes one bucket id, as keys --layout lists it"));
    const QByteArray id = request.args.first().toUtf8();
    whenReady(request, [request, choice, id] {
        auto *context = new QObject(QCoreApplication::instance());
        model::readSeedBucket(request.client, choice->layout, id, context, [=](const model::SeedBucketRead &read) {
            if (read.outcome == model::SeedBucketRead::Outcome::Failed)
                return fail(request, model::Failure::serverError(read.problem), Ctl::tr("nothing was reset"));
            if (read.outcome != model::SeedBucketRead::Outcome::Read)
                return fail(
                    request,
                    model::Failure::invalid(
                        Ctl::tr("no %1 bucket \"%2\": %3").arg(choice->name, QString::fromUtf8(id), read.problem)),
                    Ctl::tr("nothing was reset"));
            const QByteArrayList keys = model::seedKeys(choice->layout, id);
            auto deleted = std::make_shared<QByteArrayList>();
            auto left = std::make_shared<qsizetype>(keys.size());
            auto failed = std::make_shared<std::optional<model::Failure>>();
            for (const QByteArray &key : keys)
                request.client->sendForKey(key, {"DEL", key}, context, [=](const redis::RedisReply &reply) {
                    if (!reply.ok() && !*failed)
                        *failed = model::Failure::fromWriteReply(reply).prefixed(
                            Ctl::tr("DEL %1").arg(QString::fromUtf8(key)));
                    else if (reply.ok() && reply.value.integer > 0)
                        deleted->append(key);
                    if (--*left > 0)
                        return;
                    if (*failed)
                        return fail(request, **failed);
                    QStringList names;
                    for (const QByteArray &name : *deleted)
                        names << QString::fromUtf8(name);
                    ctlOut() << Ctl::tr("reset the %1 bucket \"%2\": deleted %3; its script's next call finds it "
                                        "full (not recorded in Sluice's audit log: these keys are the caller's)")
                                    .arg(choice->name, QString::fromUtf8(id), names.join(QStringLiteral(", ")))
                             << Qt::endl;
                    request.finish(ExitOk);
                });
        });
    });
}

} // namespace sluice::app
