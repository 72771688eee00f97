// Exporting the degraded mode's counter from a Node service with prom-client (docs/services.md explains it).
// Copy it beside local_limits.js; it needs prom-client (npm install prom-client).
//   const local = new LocalLimits({ instances: 4 });
//   exportLocalDecisions(local); // then the service's /metrics has sluice_local_decisions_total
"use strict";
const prometheus = require("prom-client");

// sluice_local_decisions_total{policy, outcome}: the calls a LocalLimits decided in this process.
function exportLocalDecisions(local, registry = prometheus.register) {
  return new prometheus.Counter({
    name: "sluice_local_decisions_total",
    help: "Limiter calls decided in this process while Redis could not answer.",
    labelNames: ["policy", "outcome"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, calls] of local.decided) {
        const [policy, outcome] = key.split(" ");
        this.inc({ policy, outcome }, calls);
      }
    },
  });
}

module.exports = { exportLocalDecisions };
