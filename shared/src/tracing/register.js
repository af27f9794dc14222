'use strict'

// Starts OpenTelemetry in this process. Entry points call registerTracing()
// before requiring anything else, so mysql2 is patched when it loads. FSPIOP
// requests are traced by the API's own hook (api-adapter/src/plugins/
// trace-requests.js), not by @fastify/otel. Callbacks are traced by the
// notification dispatcher's own client span per attempt (with the transfer
// id and participant on it), not by instrumentation-undici, which would add a
// second, anonymous span per request. Kafka hops are traced by the
// consumer runner itself (batch spans linked to each message, shared/src/tracing/stage-spans.js)
// rather than by instrumentation-kafkajs, which would stamp every message of
// a produce call with one producer span and so cut each transfer's trace.
// SQL is traced at the mysql2 level only (not knex too), so no statement is
// counted twice. No process keeps an async context (sync-context.js): every
// span gets its parent by hand.

const path = require('node:path')
const { TraceFlags } = require('@opentelemetry/api')
const { loadConfig } = require('../config')

/** @type {{ shutdown: () => Promise<void> } | undefined} */
let sdk

/**
 * @param {string} [role] appended to the service name (api, prepare, …); defaults to HANDLERS
 * @returns {{ enabled: boolean, service: string }}
 */
function registerTracing (role) {
  const config = loadConfig()
  const service = `${config.TRACING_SERVICE_NAME}-${role || config.HANDLERS.join('-')}`
  if (!config.TRACING_EXPORTERS.length || sdk) return { enabled: Boolean(sdk), service }
  const { NodeSDK } = require('@opentelemetry/sdk-node')
  const { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace')
  const { MySQL2Instrumentation } = require('@opentelemetry/instrumentation-mysql2')
  const processors = []
  if (config.TRACING_EXPORTERS.includes('otlp')) {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http')
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.TRACING_OTLP_ENDPOINT }) }))
  }
  if (config.TRACING_EXPORTERS.includes('file')) {
    // Its own processor, not an exporter behind BatchSpanProcessor: see file-spans.js.
    const { createFileSpanProcessor } = require('./file-spans')
    processors.push(createFileSpanProcessor({ dir: path.resolve(config.TRACING_DIR), service }))
  }
  // Constructing an instrumentation puts a hook in front of every require()
  // in the process (require-in-the-middle, @opentelemetry/instrumentation's
  // singleton), kept in place for the process's life. Node's own require
  // answers a module it has loaded from a cache keyed by the caller; the hook
  // resolves the path again each time, reading package scopes and stat-ing
  // files. kafkajs requires its request and response modules on every
  // request it makes (fetch, produce, offset commit), so under the hook each
  // Kafka request paid a path resolution, about 2% of a traced handler
  // process's busy time at light load (docs/performance.md, forty-second
  // round). The hook is only needed until mysql2 is patched: it is loaded
  // here, through the hook, and the hook is then taken out (what
  // require-in-the-middle's own unhook does). An instrumentation added to
  // the list below needs its module loaded here too, before the hook goes.
  const Module = require('node:module')
  const plainRequire = Module.prototype.require
  const plainBuiltin = process.getBuiltinModule
  const instance = new NodeSDK({
    contextManager: require('./sync-context').createSyncContextManager(),
    serviceName: service,
    autoDetectResources: false,
    sampler: new ParentBasedSampler({ root: linkedSampler(new TraceIdRatioBasedSampler(config.TRACING_SAMPLE_RATIO)) }),
    spanLimits: spanLimits(config),
    spanProcessors: processors,
    instrumentations: [new MySQL2Instrumentation()]
  })
  instance.start()
  require('mysql2')
  Module.prototype.require = plainRequire
  if (plainBuiltin) process.getBuiltinModule = plainBuiltin
  sdk = instance
  return { enabled: true, service }
}

/**
 * A batch span carries one link per message of its chunk (stage-spans.js),
 * up to KAFKA_MAX_BATCH_SIZE of them. The SDK keeps at most 128 links by
 * default, and silently the LAST ones: a bigger chunk (a backlog being
 * caught up) would lose its oldest messages' stage events, those that
 * waited longest, from the gap report.
 * @param {import('../config').Config} config
 */
const spanLimits = (config) => ({ linkCountLimit: Math.max(128, config.KAFKA_MAX_BATCH_SIZE) })

/**
 * A root sampler for spans that start a trace: one linked to a sampled span
 * is sampled, so a handler's batch span (linked to the transfers in it) is
 * kept whenever one of its transfers is; anything else is up to `ratio`.
 * @param {import('@opentelemetry/sdk-trace').Sampler} ratio
 * @returns {import('@opentelemetry/sdk-trace').Sampler}
 */
function linkedSampler (ratio) {
  const { SamplingDecision } = require('@opentelemetry/sdk-trace')
  return {
    shouldSample (context, traceId, name, kind, attributes, links) {
      if (links.some((l) => l.context.traceFlags & TraceFlags.SAMPLED)) return { decision: SamplingDecision.RECORD_AND_SAMPLED }
      return ratio.shouldSample(context, traceId, name, kind, attributes, links)
    },
    toString: () => `LinkedSampler{${ratio}}`
  }
}

/** Flushes and stops tracing (the last thing a process does on shutdown). */
async function shutdownTracing () {
  const s = sdk
  sdk = undefined
  if (s) await s.shutdown()
}

module.exports = { registerTracing, shutdownTracing, linkedSampler, spanLimits }
