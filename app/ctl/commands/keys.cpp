// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl keys: the key inspector in a terminal (keys --layout: app/ctl/ctl_seed_keys.cpp).

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/ctl_seed_keys.h"
#include "app/ctl/text_table.h"
#include "model/format/subject_text.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/bucket_reset.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy.h"
#include "model/policy/policy_store.h"
#include "model/policy/policy_summary.h"
#include "model/tables/key_inspector_model.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace sluice::app {

namespace {

constexpr int defaultLimit = 1000;

constexpr int maxLimit = 10000000;

// Runs `then` once the client is ready and `policy` (when named) is stored, or fails the command: a
// name with no policy behind it is a mistake to say, not an empty table. `then` gets the stored spread
// policies (name: buckets), whose subjects are listed one row each, their buckets summed; a store that
// cannot be read lists every bucket on its own.
void whenPolicyKnown(const CtlRequest &request, const QString &policy,
                     std::function<void(const QHash<QString, int> &)> then)
{
    whenReady(request, [=] {
        const model::PolicyStore store(request.client, request.ns);
        if (policy.isEmpty()) {
            return store.list(QCoreApplication::instance(), [=](const model::PolicyStore::ListResult &stored) {
                then(model::spreadPolicies(stored.policies));
            });
        }
        store.read(policy, QCoreApplication::instance(), [=](const model::PolicyStore::ReadResult &stored) {
            if (stored.failure && !stored.damaged)
                return fail(request, *stored.failure);
            if (!stored.policy && !stored.damaged)
                return fail(request,
                            model::Failure::invalid(Ctl::tr("no policy \"%1\" in namespace \"%2\" "
                                                            "(sluicectl policies lists them)")
                                                        .arg(policy, request.ns)));
            then(stored.policy ? model::spreadPolicies({*stored.policy}) : QHash<QString, int>());
        });
    });
}

const TextTable bucketTable({{"SUBJECT", -24},
                             {"POLICY", -20},
                             {"ALGORITHM", -15},
                             {"AVAILABLE", 13},
                             {"FULL_IN_MS", 12},
                             {"TTL_MS", 12},
                             {"ALLOWED", 10},
                             {"REJECTED", 10},
                             {"RULES", 0}},
                            1);

void printBucket(const model::InspectedBucket &row, bool json)
{
    const model::FoundBucket &bucket = row.bucket;
    if (json) {
        QJsonObject found{{QStringLiteral("policy"), bucket.policy},
                          {QStringLiteral("subject"), QString::fromUtf8(bucket.subject)},
                          {QStringLiteral("key"), QString::fromUtf8(bucket.key)},
                          {QStringLiteral("node"), bucket.node}};
        if (!bucket.spreadKeys.isEmpty()) { // a spread policy's subject: its buckets' keys, the state their sum
            QJsonArray keys;
            for (const QByteArray &key : bucket.spreadKeys)
                keys.append(QString::fromUtf8(key));
            found.insert(QStringLiteral("bucket_keys"), keys);
        }
        printBucketJson(found, row.state ? std::optional(row.state->toJson()) : std::nullopt, row.problem);
        return;
    }
    if (!row.state) {
        ctlOut() << QStringLiteral("%1 %2 ").arg(model::subjectText(bucket.subject), -24).arg(bucket.policy, -20)
                 << Ctl::tr("unreadable: %1").arg(row.problem) << Qt::endl;
        return;
    }
    const model::BucketState &state = *row.state;
    ctlOut() << bucketTable.row({model::subjectText(bucket.subject), bucket.policy, state.algorithm,
                                 QStringLiteral("%1/%2").arg(state.available).arg(state.capacity),
                                 QString::number(state.resetAfterMs), QString::number(state.ttlMs),
                                 QString::number(state.allowed), QString::number(state.rejected), state.rulesText()})
             << Qt::endl;
}

void runKeys(const CtlRequest &request)
{
    bool ok = true;
    const int limit = request.option("limit").isEmpty() ? defaultLimit : request.option("limit").toInt(&ok);
    if (!ok || limit < 1 || limit > maxLimit)
        return failUsage(request,
                         Ctl::tr("--limit must be a whole number from 1 to %1, not \"%2\"")
                             .arg(maxLimit)
                             .arg(request.option("limit")));
    if (!request.option("layout").isEmpty())
        return runSeedKeys(request, limit);
    const model::BucketFilter filter{request.args.value(0), request.option("match")};
    QString invalid;
    if (!filter.matchPattern(request.ns, &invalid))
        return failUsage(request, invalid);

    whenPolicyKnown(request, filter.policy, [=](const QHash<QString, int> &spread) {
        auto *model = new model::KeyInspectorModel(request.client, request.owner(), QCoreApplication::instance());
        model->setSpreadPolicies(spread);
        auto printed = std::make_shared<int>(0);
        if (!request.isSet("json")) {
            ctlOut() << bucketTable.header() << Qt::endl;
        }
        // Each page is printed once read; the next is asked for only while the limit allows.
        QObject::connect(model, &model::KeyInspectorModel::pageLoaded, model, [=] {
            for (; *printed < model->rowCount() && *printed < limit; ++*printed)
                printBucket(model->bucket(*printed), request.isSet("json"));
            const QStringList problems = model->scanner().problems();
            for (const QString &problem : problems)
                ctlErr() << Ctl::tr("sluicectl: keys: not scanned: %1").arg(problem) << Qt::endl;
            if (*printed < limit && model->canFetchMore({})) {
                model->fetchMore({});
                return;
            }
            if (!model->scanner().atEnd() || model->rowCount() > limit)
                ctlErr() << Ctl::tr("sluicectl: keys: stopped at --limit %1; more buckets may match").arg(limit)
                         << Qt::endl;
            request.finish(problems.isEmpty() ? ExitOk : ExitFailure);
        });
        if (const auto refused = model->browse(filter))
            fail(request, *refused);
    });
}

} // namespace

CtlCommand keysCommand()
{
    return {
        QStringLiteral("keys"),
        CommandGroup::Live,
        0,
        1,
        Access::Reads,
        QStringLiteral("[POLICY]"),
        Ctl::tr("list bucket keys and their state"),
        Ctl::tr("List bucket keys and their state (SCAN on every primary, a bounded page at a time); --json prints one "
                "object per bucket; --layout lists a seed layout's buckets instead, refilled to now when its callers' "
                "parameters are given."),
        optionNames({"match", "limit", "layout", "json"}),
        {{QStringLiteral("keys login --match 'user:*' --limit 50"), Ctl::tr("fifty of login's buckets")},
         {QStringLiteral("keys --layout scg:10:20"), Ctl::tr("Spring Cloud Gateway buckets, refilled to now")}},
        runKeys};
}

} // namespace sluice::app
