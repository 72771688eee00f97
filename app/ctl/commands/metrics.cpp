// SPDX-License-Identifier: GPL-3.0-or-later
// sluicectl metrics: the namespace's counts and library states for Prometheus, printed once or served.

#include "app/common/exit_codes.h"
#include "app/common/quit_on_signal.h"
#include "app/ctl/ctl_commands.h"
#include "app/ctl/ctl_request.h"
#include "app/ctl/exporter/metrics_endpoint.h"
#include "app/ctl/exporter/metrics_http_server.h"
#include "model/metrics/metrics_exposition.h"

#include <QCoreApplication>
#include <QHostAddress>

#include <algorithm>

namespace sluice::app {

namespace {

const QString defaultListen = QStringLiteral("127.0.0.1:9786");

void warnAbout(const model::MetricsSnapshot &snapshot)
{
    for (const QString &problem : snapshot.problems)
        ctlErr() << "sluicectl: metrics: " << problem << Qt::endl;
}

// ADDRESS:PORT with a literal IPv4 or [IPv6] address.
bool parseListen(const QString &listen, QHostAddress *address, quint16 *port)
{
    const qsizetype colon = listen.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    const QString host = listen.left(colon);
    bool portOk = false;
    const int number = listen.mid(colon + 1).toInt(&portOk);
    if (!portOk || number < 0 || number > 65535)
        return false;
    const bool bracketed = host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']'));
    *address = QHostAddress(bracketed ? host.mid(1, host.size() - 2) : host);
    if (address->isNull() || (address->protocol() == QAbstractSocket::IPv6Protocol) != bracketed)
        return false;
    *port = quint16(number);
    return true;
}

void printOnce(const CtlRequest &request, model::MetricsScraper *scraper)
{
    whenReady(request, [request, scraper] {
        scraper->scrape([request](const model::MetricsSnapshot &snapshot) {
            warnAbout(snapshot);
            ctlOut() << QString::fromStdString(
                model::exposition(model::metricFamilies(snapshot, snapshot.problems.isEmpty() ? 0 : 1)));
            ctlOut().flush();
            request.finish(ExitOk);
        });
    });
}

void serve(const CtlRequest &request, model::MetricsScraper *scraper)
{
    QHostAddress address;
    quint16 port = 0;
    const QString listen = request.option("listen").isEmpty() ? defaultListen : request.option("listen");
    if (!parseListen(listen, &address, &port))
        return failUsage(request,
                         Ctl::tr("--listen must be ADDRESS:PORT with an IP address (e.g. 127.0.0.1:9786 or "
                                 "[::1]:9786), not \"%1\"")
                             .arg(listen));
    WebConfig webConfig;
    if (!request.option("web-config").isEmpty()) {
        std::optional<model::Failure> failure;
        webConfig = WebConfig::load(request.option("web-config"), &failure);
        if (failure)
            return fail(request, *failure);
    }
    // An exporter outlives Redis restarts and failovers: it answers sluice_up 0 meanwhile.
    request.client->setAutoReconnect(true);
    // A scrape's commands each wait up to --timeout; a primary that does not answer is left out of the
    // rest of the scrape, so two of them bound it. Never past 9.5 s: Prometheus gives up on a scrape
    // after 10 s by default, and an answer saying sluice_up 0 beats none.
    const auto wait = std::chrono::milliseconds(std::min(2 * request.target.commandTimeoutMs + 500, 9500));
    auto *endpoint = new MetricsEndpoint(scraper, request.ns, wait, scraper);
    auto *server = new MetricsHttpServer(
        webConfig, [endpoint](MetricsHttpServer::Answer answer) { endpoint->collect(std::move(answer)); }, scraper);
    if (const std::optional<model::Failure> failure = server->listen(address, port))
        return fail(request, failure->reworded(Ctl::tr("cannot listen on %1: %2").arg(listen)));
    if (!address.isLoopback() && webConfig.bcryptByUser.isEmpty())
        ctlErr() << Ctl::tr("sluicectl: metrics: warning: %1 is reachable beyond this host, and the exporter asks "
                            "no one who they are: anyone who reaches it reads the namespace's policies and "
                            "subjects. Give --web-config basic_auth_users (and TLS), listen on loopback behind a "
                            "proxy, or keep the port behind a firewall.")
                        .arg(listen)
                 << Qt::endl;
    if (!address.isLoopback() && !webConfig.bcryptByUser.isEmpty() && !server->usesTls())
        ctlErr() << Ctl::tr("sluicectl: metrics: warning: %1 is reachable beyond this host and passwords come "
                            "without TLS: anyone on the path reads them. Add tls_server_config to the web config.")
                        .arg(listen)
                 << Qt::endl;
    const QString host = listen.left(listen.lastIndexOf(QLatin1Char(':')));
    ctlErr() << Ctl::tr("sluicectl: metrics: serving %1://%2:%3/metrics%4 for namespace %5 on %6 (Ctrl-C stops)")
                    .arg(server->usesTls() ? QStringLiteral("https") : QStringLiteral("http"), host,
                         QString::number(server->port()),
                         webConfig.bcryptByUser.isEmpty() ? QString() : Ctl::tr(" (basic authentication)"), request.ns,
                         request.client->options().redactedUrl())
             << Qt::endl;
    // Said once per change, not per reconnect attempt: a log an operator can read after a night of outages.
    auto wasReady = std::make_shared<bool>(request.client->state() == redis::RedisClient::State::Ready);
    QObject::connect(request.client, &redis::RedisClient::stateChanged, scraper,
                     [wasReady, target = request.client->options().redactedUrl()](redis::RedisClient::State state,
                                                                                  const QString &reason) {
        const bool ready = state == redis::RedisClient::State::Ready;
        if (ready == *wasReady)
            return;
        *wasReady = ready;
        ctlErr() << (ready ? Ctl::tr("sluicectl: metrics: connected to %1").arg(target)
                           : Ctl::tr("sluicectl: metrics: lost %1 (%2); scrapes answer sluice_up 0 until it is back")
                                 .arg(target, reason))
                 << Qt::endl;
    });
    quitOnTerminationSignals(QCoreApplication::instance());
}

void runMetrics(const CtlRequest &request)
{
    if (!request.args.isEmpty() && request.args.first() != QLatin1String("serve"))
        return failUsage(request, Ctl::tr("metrics takes serve or nothing, not \"%1\"").arg(request.args.first()));
    int top = 0;
    if (!request.option("top").isEmpty()) {
        bool ok = false;
        top = request.option("top").toInt(&ok);
        if (!ok || top < 1 || top > model::MetricsScraper::kMaxTopPerPolicy)
            return failUsage(request,
                             Ctl::tr("--top must be a whole number from 1 to %1, not \"%2\"")
                                 .arg(model::MetricsScraper::kMaxTopPerPolicy)
                                 .arg(request.option("top")));
    }
    if (request.args.isEmpty() && !request.option("listen").isEmpty())
        return failUsage(request, Ctl::tr("--listen goes with metrics serve"));
    if (request.args.isEmpty() && !request.option("web-config").isEmpty())
        return failUsage(request, Ctl::tr("--web-config goes with metrics serve"));
    auto *scraper = new model::MetricsScraper(request.client, request.owner(), top, QCoreApplication::instance());
    if (request.args.isEmpty())
        printOnce(request, scraper);
    else
        serve(request, scraper);
}

} // namespace

CtlCommand metricsCommand()
{
    return {
        QStringLiteral("metrics"),
        CommandGroup::Live,
        0,
        1,
        Access::Reads,
        QStringLiteral("[serve]"),
        Ctl::tr("expose the limiter's counts to Prometheus"),
        Ctl::tr(
            "Print the namespace's metrics once in the Prometheus text format (for node_exporter's textfile "
            "collector), or with serve answer Prometheus scrapes over HTTP until interrupted: per policy its allowed "
            "and rejected totals and its limit, per primary its library state. Reads only; docs/monitoring.md lists "
            "the metrics."),
        optionNames({"listen", "web-config", "top"}),
        {{QStringLiteral("metrics"), Ctl::tr("one exposition on stdout")},
         {QStringLiteral("--profile prod metrics serve --listen 127.0.0.1:9786"),
          Ctl::tr("an exporter for Prometheus")},
         {QStringLiteral("metrics serve --top 10"), Ctl::tr("with each policy's ten most rejected subjects")}},
        runMetrics};
}

} // namespace sluice::app
