// Prints the calls the peer rate limiters send, taken from their installed npm packages at run time:
// each package is driven through its own public API with a client that records the script, keys and
// arguments it is handed instead of sending them. For each case it writes CASE.lua (the script as the
// package sends it; upstash's "#!lua flags=..." first line dropped, which only Upstash's own server
// knows and Redis 7.0 refuses) and CASE.call (number of keys, keys and arguments, one per line) into
// OUT_DIR. Subjects are "{__rand_int__}" on the allow path (redis-benchmark puts a random one in) and
// "{hot}" on the deny path. Policies: 100 per WINDOW_S seconds (default 1), burst 100.
//
// Usage: node peer_calls.js NODE_MODULES_DIR OUT_DIR [WINDOW_S]
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, out, windowArgument] = process.argv.slice(2);
const windowSeconds = Number(windowArgument || 1);
const load = (name) => require(path.join(modules, name));

// Records every call a package makes and answers like an admitting Redis would.
function recorder(reply) {
  const calls = [];
  const record = (script, keys, args) => {
    calls.push({ script, keys: keys.map(String), args: args.map(String) });
    return Promise.resolve(reply);
  };
  const scripts = new Map(); // upstash sends EVALSHA first, then EVAL on NOSCRIPT
  return {
    calls,
    // @upstash/redis's interface as @upstash/ratelimit uses it
    evalsha: (sha) => Promise.reject(new Error(`NOSCRIPT ${sha}`)),
    eval: (script, keys, args) => record(script, keys, args),
    // ioredis's defineCommand, as rate-limiter-flexible uses it
    defineCommand(name, { numberOfKeys, lua }) {
      scripts.set(name, lua);
      this[name] = (list) => record(lua, list.slice(0, numberOfKeys), list.slice(numberOfKeys));
    },
  };
}

function write(name, call) {
  const script = call.script.replace(/^#!lua[^\n]*\n/, '');
  fs.writeFileSync(path.join(out, `${name}.lua`), script);
  fs.writeFileSync(path.join(out, `${name}.call`), [call.keys.length, ...call.keys, ...call.args].join('\n') + '\n');
}

async function upstash(name, limiter, reply) {
  const { Ratelimit } = load('@upstash/ratelimit');
  for (const [path, subject] of [['allow', '{__rand_int__}'], ['deny', '{hot}']]) {
    const redis = recorder(reply);
    await new Ratelimit({ redis, limiter: limiter(Ratelimit), analytics: false }).limit(subject);
    write(`${name}_${path}`, redis.calls[0]);
  }
}

async function rateLimiterFlexible() {
  const { RateLimiterRedis } = load('rate-limiter-flexible');
  for (const [path, subject] of [['allow', '{__rand_int__}'], ['deny', '{hot}']]) {
    const storeClient = recorder([1, 1000]);
    await new RateLimiterRedis({ storeClient, points: 100, duration: windowSeconds }).consume(subject);
    write(`rlflx_fixed_window_${path}`, storeClient.calls[0]);
  }
}

(async () => {
  const window = `${windowSeconds} s`;
  await upstash('upstash_fixed_window', (r) => r.fixedWindow(100, window), [1, 100]);
  await upstash('upstash_sliding_window', (r) => r.slidingWindow(100, window), [99, 100]);
  await upstash('upstash_token_bucket', (r) => r.tokenBucket(100, window, 100), [99, 0, 100]);
  await rateLimiterFlexible();
})().catch((error) => {
  console.error(`peer_calls.js: ${error.stack || error}`);
  process.exit(1);
});
