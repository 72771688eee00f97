// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl reset-key: one subject's bucket full again, audited.

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/ctl_seed_keys.h"
#include "app/ctl/text_table.h"
#include "model/limiter/bucket_key.h"
#include "model/limiter/bucket_reset.h"
#include "model/limiter/limiter_library.h"
#include "model/policy/policy.h"
#include "model/policy/policy_store.h"
#include "model/tables/key_inspector_model.h"

#include <QCoreApplication>

namespace sluice::app {

namespace {

void runResetKey(const CtlRequest &request)
{
    if (request.isSet("layout"))
        return runSeedReset(request);
    if (request.args.size() != 2)
        return failUsage(request, Ctl::tr("reset-key takes a policy and a subject (or --layout and a bucket id)"));
    const QString policy = request.args.at(0);
    const QByteArray subject = request.args.at(1).toUtf8();
    if (!model::isValidPolicyName(policy))
        return failUsage(request, Ctl::tr("\"%1\" is not a policy name").arg(policy));
    if (!model::isValidSubject(subject))
        return failUsage(request, Ctl::tr("a subject is 1 to %1 bytes and has no { or }").arg(model::maxSubjectBytes));
    whenReady(request, [=] {
        model::resetBucket(request.client, request.owner(), policy, subject, request.who, QCoreApplication::instance(),
                           [=](const std::optional<model::Failure> &failure) {
            if (failure)
                return fail(request, *failure, Ctl::tr("the bucket was not reset"));
            ctlOut() << Ctl::tr("reset the bucket of \"%1\" under \"%2\": it is full again (recorded in "
                                "the audit log)")
                            .arg(QString::fromUtf8(subject), policy)
                     << Qt::endl;
            request.finish(ExitOk);
        });
    });
}

} // namespace

CtlCommand resetKeyCommand()
{
    CtlCommand command{QStringLiteral("reset-key"),
                       CommandGroup::Live,
                       1,
                       2,
                       Access::Writes,
                       QStringLiteral("POLICY SUBJECT | --layout LAYOUT ID"),
                       Ctl::tr("empty one subject's bucket"),
                       Ctl::tr("Delete one subject's bucket so it is full again (audited). With --layout, delete "
                               "the keys of one bucket of a seed layout (the gateway's, a counter, ...) as keys "
                               "--layout lists it; that is not audited, as those keys are not Sluice's."),
                       optionNames({"layout"}),
                       {{QStringLiteral("reset-key login alice"), Ctl::tr("let alice in again at once")},
                        {QStringLiteral("reset-key --layout scg gw-a"),
                         Ctl::tr("empty the Spring Cloud Gateway's bucket for id gw-a")}},
                       runResetKey};
    command.checkAfterLostAnswer = QStringLiteral("sluicectl history; sluicectl keys");
    return command;
}

} // namespace sluice::app
