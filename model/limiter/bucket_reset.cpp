// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/limiter/bucket_reset.h"

#include "model/limiter/bucket_key.h"
#include "model/limiter/bucket_state.h"
#include "model/limiter/limiter_library.h"
#include "model/limiter/lua_source.h"
#include "model/policy/policy.h"
#include "model/policy/policy_store.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace sluice::model {

using redis::RedisReply;

namespace {

// This file's strings, under the context a translator sees them in.
struct Text {
    Q_DECLARE_TR_FUNCTIONS(sluice::model::BucketReset)
};

// Reads the bucket for the audit entry, records the reset, then deletes the bucket and what lies beside it.
void inspectAndReset(redis::RedisCommands *client, const LibraryOwner &owner, const QString &policy,
                     const QByteArray &subject, const QString &who, QObject *context,
                     std::function<void(const std::optional<Failure> &)> done)
{
    const QByteArray key = bucketKey(owner.ns, policy, subject);
    client->sendForKey(key, BucketState::inspectCommand(owner, key, policy), context, [=](const RedisReply &inspected) {
        if (inspected.failure != RedisReply::Failure::None) {
            done(Failure::fromReply(inspected).reworded(Text::tr("cannot read the bucket: %1; nothing was reset")));
            return;
        }
        // A bucket the library cannot read (its policy unpublished, a key of another type) can be
        // reset all the same: the record keeps why its state is unknown.
        QString problem;
        const std::optional<BucketState> state = BucketState::fromReply(inspected, &problem);
        const QJsonObject last = state ? state->toJson() : QJsonObject{{QStringLiteral("unreadable"), problem}};
        const QByteArrayList record{"EVAL",
                                    luaSource(QStringLiteral("bucket_reset_record.lua")),
                                    "1",
                                    AdminKeys(owner.ns).audit(),
                                    policy.toUtf8(),
                                    who.toUtf8(),
                                    subject,
                                    key,
                                    QJsonDocument(last).toJson(QJsonDocument::Compact)};
        client->send(record, context, [=](const RedisReply &recorded) {
            if (!recorded.ok()) {
                done(Failure::fromReply(recorded).reworded(
                    Text::tr("cannot record the reset in the audit log: %1; nothing was reset")));
                return;
            }
            // What the library keeps beside the bucket goes too (the same slot): the penalty's block, the
            // reservations not yet settled (whose refunds would otherwise land in the fresh bucket) and a
            // sliding window's debt (see lua/limiter/subject_rules.lua, reservations.lua, sliding_window.lua).
            const QByteArrayList deletion{"DEL", key, key + ":blocked", key + ":reserved", key + ":debt"};
            client->sendForKey(key, deletion, context, [=](const RedisReply &deleted) {
                if (deleted.ok())
                    done(std::nullopt);
                else
                    done(Failure::fromWriteReply(deleted).prefixed(
                        Text::tr("the audit log records the reset, but deleting %1 failed")
                            .arg(QString::fromUtf8(key))));
            });
        });
    });
}

// A spread policy's subject (Policy::spread): each of its buckets reset as above, each recorded. Says how many
// were reset when one could not be.
void resetSpreadSubject(redis::RedisCommands *client, const LibraryOwner &owner, const QString &policy, int spread,
                        const QByteArray &subject, const QString &who, QObject *context,
                        std::function<void(const std::optional<Failure> &)> done)
{
    struct Progress {
        int unanswered = 0;
        int reset = 0;
        std::optional<Failure> failure;
    };
    auto progress = std::make_shared<Progress>();
    progress->unanswered = spread;
    for (int bucket = 0; bucket < spread; ++bucket) {
        inspectAndReset(client, owner, policy, spreadSubject(subject, bucket), who, context,
                        [=](const std::optional<Failure> &failure) {
            if (failure && !progress->failure)
                progress->failure = failure->prefixed(Text::tr("bucket %1").arg(bucket));
            progress->reset += failure ? 0 : 1;
            if (--progress->unanswered > 0)
                return;
            if (progress->failure)
                done(progress->failure->prefixed(
                    Text::tr("%1 of the subject's %2 buckets were reset").arg(progress->reset).arg(spread)));
            else
                done(std::nullopt);
        });
    }
}

} // namespace

void resetBucket(redis::RedisCommands *client, const LibraryOwner &owner, const QString &policy,
                 const QByteArray &subject, const QString &who, QObject *context,
                 std::function<void(const std::optional<Failure> &)> done)
{
    if (!isValidPolicyName(policy) || !isValidSubject(subject)) {
        done(Failure::invalid(
            Text::tr("not a bucket: a policy name and a subject of 1 to %1 bytes without { or } are needed")
                .arg(maxSubjectBytes)));
        return;
    }
    // A stored policy's bucket, or one a deleted policy left behind; a name that has neither has nothing to
    // reset, and an audit entry saying something was would be untrue. A spread policy's subject is all its
    // buckets (a subject may end in "#<digits>" itself: it is never read as a bucket number here).
    PolicyStore(client, owner.ns).read(policy, context, [=](const PolicyStore::ReadResult &stored) {
        if (stored.failure && !stored.damaged) {
            done(stored.failure->reworded(Text::tr("cannot read the stored policies: %1; nothing was reset")));
            return;
        }
        if (stored.policy && stored.policy->spread > 0) {
            resetSpreadSubject(client, owner, policy, stored.policy->spread, subject, who, context, done);
            return;
        }
        if (stored.policy || stored.damaged) {
            inspectAndReset(client, owner, policy, subject, who, context, done);
            return;
        }
        const QByteArray key = bucketKey(owner.ns, policy, subject);
        client->sendForKey(key, {"EXISTS", key}, context, [=](const RedisReply &exists) {
            if (!exists.ok())
                done(Failure::fromReply(exists).reworded(Text::tr("cannot read the bucket: %1; nothing was reset")));
            else if (exists.value.integer == 0)
                done(Failure{Failure::Kind::Invalid,
                             Text::tr("no policy named \"%1\" is stored in %2, and it has no bucket for this "
                                      "subject; nothing was reset (a seed layout's bucket, such as a gateway's, is "
                                      "reset with reset-key --layout)")
                                 .arg(policy, owner.describe())});
            else
                inspectAndReset(client, owner, policy, subject, who, context, done);
        });
    });
}

} // namespace sluice::model
