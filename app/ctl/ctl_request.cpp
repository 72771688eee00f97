// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/ctl/ctl_request.h"

#include "app/common/exit_codes.h"
#include "app/ctl/ctl_commands.h"

#include <QCoreApplication>
#include <QJsonDocument>

#include <utility>

namespace sluice::app {

using model::Failure;

namespace {

// The failure's message as sluicectl words it: connection failures name the server.
QString wording(const CtlRequest &request, const Failure &failure)
{
    const QString target = request.client ? request.client->options().redactedUrl() : QString();
    if (target.isEmpty())
        return failure.message;
    switch (failure.kind) {
    case Failure::Kind::Unreachable: return Ctl::tr("cannot connect to %1: %2").arg(target, failure.message);
    case Failure::Kind::TimedOut: return Ctl::tr("%1 did not answer in time: %2").arg(target, failure.message);
    case Failure::Kind::OutcomeUnknown: return Ctl::tr("no answer from %1: %2").arg(target, failure.message);
    case Failure::Kind::Refused:
    case Failure::Kind::Conflict:
    case Failure::Kind::Invalid:
    case Failure::Kind::ServerError: break;
    }
    return failure.message;
}

} // namespace

QTextStream &ctlOut()
{
    return *CtlStreams::out();
}

QTextStream &ctlErr()
{
    return *CtlStreams::err();
}

void ctlClearScreen()
{
    ctlOut().flush();
    *CtlStreams::current().terminal << "\x1b[H\x1b[2J";
    CtlStreams::current().terminal->flush();
}

CtlStreams::CtlStreams(QTextStream &out, QTextStream &err, QTextStream *terminal)
    : m_previous(std::exchange(current(), {&out, &err, terminal ? terminal : &out}))
{
}

CtlStreams::~CtlStreams()
{
    current().out->flush();
    current().err->flush();
    current() = m_previous;
}

CtlStreams::Streams &CtlStreams::current()
{
    static QTextStream standardOut(stdout);
    static QTextStream standardErr(stderr);
    static Streams streams{&standardOut, &standardErr, &standardOut};
    return streams;
}

int exitCodeFor(Failure::Kind kind)
{
    switch (kind) {
    case Failure::Kind::Unreachable: return ExitCannotConnect;
    case Failure::Kind::OutcomeUnknown: return ExitOutcomeUnknown;
    case Failure::Kind::TimedOut: return ExitTimeout;
    case Failure::Kind::Refused: return ExitRefused;
    case Failure::Kind::Conflict: return ExitConflict;
    case Failure::Kind::Invalid: return ExitInvalidInput;
    case Failure::Kind::ServerError: break;
    }
    return ExitFailure;
}

int report(const CtlRequest &request, const Failure &failure, const QString &unchanged)
{
    const QString prefix = QStringLiteral("sluicectl: %1: ").arg(request.command);
    ctlErr() << prefix << wording(request, failure) << Qt::endl;
    if (failure.kind == Failure::Kind::OutcomeUnknown) {
        ctlErr() << prefix << Ctl::tr("the answer was lost, so the outcome is unknown: it may have been applied")
                 << Qt::endl;
        const CtlCommand *command = findCtlCommand(request.command);
        if (const QString check = command ? command->checkAfterLostAnswer : QString(); !check.isEmpty())
            ctlErr() << prefix << Ctl::tr("see what happened with: %1").arg(check) << Qt::endl;
    } else if (!unchanged.isEmpty()) {
        ctlErr() << prefix << unchanged << Qt::endl;
    }
    return exitCodeFor(failure.kind);
}

void fail(const CtlRequest &request, const Failure &failure, const QString &unchanged)
{
    request.finish(report(request, failure, unchanged));
}

void failUsage(const CtlRequest &request, const QString &message)
{
    ctlErr() << QStringLiteral("sluicectl: %1: ").arg(request.command) << message << Qt::endl;
    request.finish(ExitUsage);
}

void printBucketJson(QJsonObject bucket, const std::optional<QJsonObject> &state, const QString &problem)
{
    if (state) {
        for (auto it = state->begin(); it != state->end(); ++it)
            bucket.insert(it.key(), it.value());
    } else {
        bucket.insert(QStringLiteral("error"), problem);
    }
    ctlOut() << QJsonDocument(bucket).toJson(QJsonDocument::Compact) << Qt::endl;
}

void whenReady(const CtlRequest &request, std::function<void()> then)
{
    if (request.client->state() == redis::RedisClient::State::Ready) {
        then();
        return;
    }
    auto *context = new QObject(QCoreApplication::instance());
    QObject::connect(request.client, &redis::RedisClient::stateChanged, context,
                     [=](redis::RedisClient::State state, const QString &reason) {
        if (state == redis::RedisClient::State::Ready) {
            delete context;
            then();
        } else if (state == redis::RedisClient::State::Failed || state == redis::RedisClient::State::Disconnected) {
            delete context;
            fail(request, {model::Failure::Kind::Unreachable, reason});
        }
    });
}

} // namespace sluice::app
