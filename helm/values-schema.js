'use strict'

// Prints helm/switchyard/values.schema.json from the configuration schema and
// the handler registry, or with --write updates the file. Helm validates
// values against it on install, upgrade, lint and template, so a misspelled
// variable or handler fails there instead of being ignored in a pod.
// test/unit/helm-chart.test.js fails when the file and this output differ.
//
//   node helm/values-schema.js           print the file
//   node helm/values-schema.js --write   update helm/switchyard/values.schema.json

const fs = require('node:fs')
const path = require('node:path')
const { schema } = require('../shared/src/config-schema')
const { names } = require('../handlers/src/registry')

const SCHEMA_FILE = path.join(__dirname, 'switchyard', 'values.schema.json')

/**
 * Set by the chart itself: STACK is always "off", HANDLERS is per Deployment,
 * ADMIN_ALLOW_UNAUTHENTICATED follows apiAdapter.adminAuth.
 */
const CHART_SET = ['STACK', 'HANDLERS', 'ADMIN_ALLOW_UNAUTHENTICATED']
/** Only from a Secret, never from a ConfigMap or `env`. */
const SECRET_VARS = ['DB_PASSWORD', 'ADMIN_TOKEN', 'KAFKA_SASL_PASSWORD']
/** The ones `secret` in values may hold; ADMIN_TOKEN is apiAdapter.adminAuth's Secret's alone. */
const SECRET_VALUES = ['DB_PASSWORD', 'KAFKA_SASL_PASSWORD']
/** Only the local development stack reads these; in a cluster STACK is "off". */
const LOCAL_ONLY_GROUP = 'stack'

/**
 * @param {Record<string, import('../shared/src/config-schema').VarSpec>} vars
 * @returns {string[]} the variables values may set under `config` and `env`
 */
const settableNames = (vars) => Object.keys(vars)
  .filter((name) => !CHART_SET.includes(name) && !SECRET_VARS.includes(name) && vars[name].group !== LOCAL_ONLY_GROUP)

/** `k` more decimal digits, as a regular expression. @param {number} k */
const digits = (k) => (k === 0 ? '' : k === 1 ? '\\d' : `\\d{${k}}`)

/**
 * Numbers as long as `s` that share its digits up to one position, where the
 * digit is in the class `range(d)` gives for s's digit d there (none when it
 * gives null), and any digits after.
 * @param {string} s @param {(d: number) => string | null} range
 */
const atEachDigit = (s, range) => [...s].flatMap((c, i) => {
  const r = range(Number(c))
  return r === null ? [] : [`${s.slice(0, i)}[${r}]${digits(s.length - i - 1)}`]
})

/**
 * A regular expression for the whole numbers from `n` up (n ≥ 0), written
 * in decimal, as loadConfig reads them (leading zeros and surrounding spaces
 * allowed, and "-0", which is 0): more digits than n, or as many and larger at the first digit that
 * differs, or n itself.
 * @param {number} n
 */
function atLeast (n) {
  if (n <= 0) return '^\\s*(?:-0+|\\d+)\\s*$'
  const s = String(n)
  const alternatives = [`[1-9]\\d{${s.length},}`, ...atEachDigit(s, (d) => (d < 9 ? `${d + 1}-9` : null)), s]
  return `^\\s*0*(?:${alternatives.join('|')})\\s*$`
}

/**
 * The same for the whole numbers from 0 up to `n`: fewer digits than n, or
 * as many and smaller at the first digit that differs, or n itself.
 * @param {number} n
 */
function atMost (n) {
  const s = String(n)
  const alternatives = [...(s.length > 1 ? [`\\d{1,${s.length - 1}}`] : []), ...atEachDigit(s, (d) => (d > 0 ? `0-${d - 1}` : null)), s]
  // loadConfig reads "-0" as 0.
  return `^\\s*(?:-0+|0*(?:${alternatives.join('|')}))\\s*$`
}

/**
 * What a string must look like to be an integer within the spec's bounds:
 * one pattern, or all of several (an integer given as a YAML number is held
 * to minimum and maximum instead).
 * @param {import('../shared/src/config-schema').VarSpec} spec
 */
function integerPatterns (spec) {
  if (spec.min === undefined || spec.min < 0) {
    if (spec.max !== undefined) throw new Error('an upper bound needs a lower bound of 0 or more')
    return { pattern: '^\\s*-?\\d+\\s*$' }
  }
  const patterns = [atLeast(spec.min), ...(spec.max === undefined ? [] : [atMost(spec.max)])]
  return patterns.length === 1 ? { pattern: patterns[0] } : { allOf: patterns.map((pattern) => ({ pattern })) }
}

/**
 * A JSON-schema fragment for one variable. Values may be strings (as in an
 * env file) or the YAML scalar operators naturally write.
 * @param {import('../shared/src/config-schema').VarSpec} spec
 */
function toProperty (spec) {
  const description = `${spec.description} Default: ${Array.isArray(spec.default) ? spec.default.join(',') : spec.default}.`
  const minimum = spec.min === undefined ? {} : { minimum: spec.min }
  const maximum = spec.max === undefined ? {} : { maximum: spec.max }
  switch (spec.type) {
    case 'integer': return { description, type: ['integer', 'string'], ...integerPatterns(spec), ...minimum, ...maximum }
    // A bound on a number given as a string is loadConfig's to check; a sign is not allowed below a bound of 0.
    case 'number': return { description, type: ['number', 'string'], pattern: `^\\s*${spec.min !== undefined && spec.min >= 0 ? '' : '-?'}(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*$`, ...minimum, ...maximum }
    case 'boolean': return { description, type: ['boolean', 'string'] }
    case 'list': return { description, type: ['string', 'array'], items: { type: 'string' } }
    case 'enum': return { description, enum: spec.values }
    default: return { description, type: 'string', ...(spec.pattern === undefined ? {} : { pattern: spec.pattern }) }
  }
}

/** @param {Record<string, object>} properties @returns {object} a map with only these keys */
const closed = (properties) => ({ type: 'object', additionalProperties: false, properties })
/** Kubernetes objects (resources, affinity, securityContext …) are passed through as they are. */
const OBJECT = { type: 'object' }
const ARRAY = { type: 'array' }
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } }

const AUTOSCALING = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    minReplicas: { type: 'integer', minimum: 1 },
    maxReplicas: { type: 'integer', minimum: 1 },
    targetCPUUtilizationPercentage: { type: 'integer', minimum: 1, maximum: 100 },
    behavior: { type: 'object' }
  }
}

/**
 * @param {Record<string, import('../shared/src/config-schema').VarSpec>} vars
 * @param {string[]} handlerNames
 */
function renderValuesSchema (vars, handlerNames) {
  const env = {
    type: 'object',
    description: 'Environment variables from shared/src/config-schema.js. STACK, HANDLERS and ADMIN_ALLOW_UNAUTHENTICATED are set by the chart; DB_PASSWORD and KAFKA_SASL_PASSWORD belong in `secret`, ADMIN_TOKEN in the Secret of apiAdapter.adminAuth.',
    additionalProperties: false,
    properties: Object.fromEntries(settableNames(vars).map((name) => [name, toProperty(vars[name])]))
  }
  const handler = {
    type: 'object',
    additionalProperties: false,
    required: ['enabled'],
    properties: {
      enabled: { type: 'boolean' },
      replicas: { type: 'integer', minimum: 0 },
      resources: { type: 'object' },
      env: { $ref: '#/definitions/env' },
      autoscaling: { $ref: '#/definitions/autoscaling' },
      nodeSelector: { type: 'object' },
      tolerations: { type: 'array' },
      affinity: { type: 'object' },
      podAnnotations: STRING_MAP
    }
  }
  const secret = closed({
    existingSecret: { type: 'string', description: 'A Secret you manage with the key DB_PASSWORD and, with KAFKA_SASL_MECHANISM, KAFKA_SASL_PASSWORD (optional).' },
    ...Object.fromEntries(SECRET_VALUES.map((name) => [name, { type: 'string', description: vars[name].description }]))
  })
  const service = closed({
    type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    annotations: STRING_MAP
  })
  const adminService = closed({
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    annotations: STRING_MAP
  })
  const adminAuth = closed({
    enabled: { type: 'boolean', description: 'Admin requests must carry `Authorization: Bearer <ADMIN_TOKEN>`, the token read from a Secret.' },
    existingSecret: { type: 'string', description: 'A Secret you manage holding the token; empty: the chart generates <fullname>-admin-token once and keeps it.' },
    existingSecretKey: { type: 'string', minLength: 1, description: "The token's key in existingSecret." },
    allowUnauthenticatedNetworkAccess: { type: 'boolean', description: 'With enabled false, allow a non-loopback ADMIN_HOST: anything reaching the pods can use the admin API.' }
  })
  const apiAdapter = closed({
    enabled: { type: 'boolean' },
    replicas: { type: 'integer', minimum: 0 },
    resources: OBJECT,
    env: { $ref: '#/definitions/env' },
    autoscaling: { $ref: '#/definitions/autoscaling' },
    service,
    adminService,
    adminAuth,
    nodeSelector: OBJECT,
    tolerations: ARRAY,
    affinity: OBJECT,
    podAnnotations: STRING_MAP
  })
  const seconds = { type: 'integer', minimum: 0 }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment: 'Generated by `node helm/values-schema.js --write` from shared/src/config-schema.js and handlers/src/registry.js.',
    type: 'object',
    additionalProperties: false,
    definitions: { env, autoscaling: AUTOSCALING, handler },
    properties: {
      image: closed({
        repository: { type: 'string', minLength: 1 },
        tag: { type: ['string', 'number'], description: "Empty: the chart's appVersion." },
        pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] }
      }),
      imagePullSecrets: ARRAY,
      nameOverride: { type: 'string' },
      fullnameOverride: { type: 'string' },
      config: { $ref: '#/definitions/env' },
      secret,
      tlsFiles: closed({
        secretName: { type: 'string', description: 'A Secret you manage holding PEM files (CA bundles, client certificates and keys), mounted read-only in every pod and hook job; empty: none.' },
        mountPath: { type: 'string', pattern: '^/', description: 'Where; name the files in config, e.g. KAFKA_TLS_CA_FILE: <mountPath>/ca.crt.' }
      }),
      serviceAccount: closed({
        create: { type: 'boolean' },
        name: { type: 'string' },
        annotations: STRING_MAP
      }),
      apiAdapter,
      handlers: {
        type: 'object',
        description: 'One entry per handler in handlers/src/registry.js.',
        additionalProperties: false,
        properties: Object.fromEntries(handlerNames.map((name) => [name, { $ref: '#/definitions/handler' }]))
      },
      autoscalingBehavior: OBJECT,
      pdb: closed({
        enabled: { type: 'boolean' },
        maxUnavailable: { type: ['integer', 'string'] },
        unhealthyPodEvictionPolicy: {
          enum: ['AlwaysAllow', 'IfHealthyBudget', ''],
          description: 'Whether drains may evict running pods that are not ready; "" leaves the field out (Kubernetes < 1.27).'
        }
      }),
      shutdown: closed({ preStopSleepSeconds: seconds, extraGraceSeconds: seconds }),
      probes: closed({ startup: OBJECT, readiness: OBJECT, liveness: OBJECT }),
      metrics: closed({
        scrapeAnnotations: { type: 'boolean', description: 'prometheus.io/scrape, /port and /path annotations on every pod.' }
      }),
      jobs: closed({
        backoffLimit: seconds,
        activeDeadlineSeconds: { type: ['integer', 'null'], minimum: 0 },
        serviceAccountName: { type: 'string' },
        resources: OBJECT
      }),
      podSecurityContext: OBJECT,
      securityContext: OBJECT,
      podAnnotations: STRING_MAP,
      podLabels: STRING_MAP,
      nodeSelector: OBJECT,
      tolerations: ARRAY,
      affinity: OBJECT,
      // Helm passes a parent chart's global values to a subchart.
      global: OBJECT
    }
  }
}

/** @returns {string} the file's text */
const renderValuesSchemaFile = () => JSON.stringify(renderValuesSchema(schema, names()), null, 2) + '\n'

function main () {
  const text = renderValuesSchemaFile()
  if (!process.argv.includes('--write')) {
    process.stdout.write(text)
    return
  }
  fs.writeFileSync(SCHEMA_FILE, text)
  process.stdout.write(`Wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`)
}

if (require.main === module) main()

module.exports = { renderValuesSchema, renderValuesSchemaFile, settableNames, CHART_SET, SECRET_VARS, SECRET_VALUES, SCHEMA_FILE }
