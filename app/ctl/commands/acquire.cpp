// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl acquire: one decision, taken as a service would take it.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_nodes.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/text_table.h"
#include "model/deploy/library_publisher.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/reference_limiter.h"
#include "model/policy/policy.h"
#include "model/policy/policy_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace sluice::app {

namespace {

void sendAcquire(const CtlRequest &request, const QString &policy, const QByteArray &subject);

void runAcquire(const CtlRequest &request)
{
    const QString policy = request.args.at(0);
    const QByteArray subject = request.args.at(1).toUtf8();
    if (!model::isValidSubject(subject))
        return failUsage(request, Ctl::tr("a subject is 1 to %1 bytes and has no { or }").arg(model::maxSubjectBytes));
    if (!model::isValidPolicyName(policy))
        return failUsage(request, Ctl::tr("\"%1\" is not a policy name").arg(policy));
    // A spread policy's subject goes to one of its buckets, picked at random as the snippets do (a subject may
    // end in "#<digits>" itself: it is never read as a bucket number). The stored definition says whether it is
    // spread; when the published library differs, its error says so.
    whenReady(request, [=] {
        model::PolicyStore(request.client, request.ns)
            .read(policy, QCoreApplication::instance(),
                  [=](const model::PolicyStore::ReadResult &stored) {
            const int spread = stored.policy ? stored.policy->spread : 0;
            if (spread == 0)
                return sendAcquire(request, policy, subject);
            const QByteArray picked = model::spreadSubject(subject, int(QRandomGenerator::global()->bounded(spread)));
            if (!request.isSet("json"))
                ctlOut() << QStringLiteral("%1  %2").arg(QStringLiteral("bucket"), -15).arg(QString::fromUtf8(picked))
                         << Qt::endl;
            sendAcquire(request, policy, picked);
            });
    });
}

void sendAcquire(const CtlRequest &request, const QString &policy, const QByteArray &subject)
{
    const QByteArray key = model::bucketKey(request.ns, policy, subject);
    QByteArrayList command{"FCALL", request.owner().function("acquire"), "1", key, policy.toUtf8()};
    if (!request.option("cost").isEmpty())
        command << request.option("cost").toUtf8();
    request.client->send(command, QCoreApplication::instance(), [request](const redis::RedisReply &reply) {
        const QVector<redis::RespValue> &fields = reply.value.elements;
        if (!reply.ok() || fields.size() < 6) {
            model::Failure failure = model::Failure::fromWriteReply(reply);
            // The library named a policy it does not serve: the input was wrong, and nothing was decided.
            if (reply.failure == redis::RedisReply::Failure::None
                && reply.errorText().startsWith(QLatin1String("ERR sluice: unknown policy")))
                failure.kind = model::Failure::Kind::Invalid;
            return fail(request, failure);
        }
        // One policy: a seventh element is the concurrency lease id or the leaky bucket's delay.
        QStringList names{QStringLiteral("allowed"),        QStringLiteral("remaining"),
                          QStringLiteral("retry_after_ms"), QStringLiteral("reset_after_ms"),
                          QStringLiteral("limit"),          QStringLiteral("policy")};
        if (fields.size() > 6)
            names << (fields.at(6).isInteger() ? QStringLiteral("delay_ms") : QStringLiteral("lease"));
        QJsonObject object;
        for (qsizetype i = 0; i < names.size(); ++i) {
            const redis::RespValue &field = fields.at(i);
            const QJsonValue value = i == 0 ? QJsonValue(field.integer == 1)
                : field.isInteger()         ? QJsonValue(static_cast<double>(field.integer))
                                            : QJsonValue(QString::fromUtf8(field.bytes));
            object.insert(names.at(i), value);
            // retry_after_ms -2 (the JSON keeps it, as the library replies): the call's cost is above what the
            // policy admits at once, so no wait lets it pass.
            const bool never = i == 2 && field.integer == model::retryNeverMs;
            if (!request.isSet("json"))
                ctlOut() << QStringLiteral("%1  %2")
                                .arg(names.at(i), -15)
                                .arg(never ? Ctl::tr("never (cost above what the policy admits at once)")
                                           : value.toVariant().toString())
                         << Qt::endl;
        }
        if (request.isSet("json"))
            ctlOut() << QJsonDocument(object).toJson(QJsonDocument::Compact) << Qt::endl;
        request.finish(fields.at(0).integer == 1 ? ExitOk : ExitRejected);
    });
}

} // namespace

CtlCommand acquireCommand()
{
    return {
        QStringLiteral("acquire"),
        CommandGroup::TestTraffic,
        2,
        2,
        Access::Writes,
        QStringLiteral("POLICY SUBJECT"),
        Ctl::tr("take one decision and print it"),
        Ctl::tr("Take one decision from a policy for a subject, as a service would, and print it; exit 11 when it is a "
                "rejection."),
        optionNames({"cost", "json"}),
        {{QStringLiteral("acquire login alice"), Ctl::tr("one call for alice")},
         {QStringLiteral("acquire upload alice --cost 5 --json"), Ctl::tr("a call of cost 5, as JSON")}},
        runAcquire};
}

} // namespace sluice::app
