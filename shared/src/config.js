'use strict'

// The only module that reads process.env (DESIGN.md rule 8). Everything else
// receives the frozen object returned by loadConfig().

const { schema } = require('./config-schema')

/**
 * The validated configuration: one property per schema variable.
 * @typedef {{ readonly [name: string]: any }} Config
 */

class ConfigError extends Error {
  /** @param {string[]} problems */
  constructor (problems) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
    this.problems = problems
  }
}

const parsers = {
  /** @param {string} raw */
  string: (raw) => raw,
  /** @param {string} raw */
  integer: (raw) => (/^-?\d+$/.test(raw.trim()) ? Number(raw) : undefined),
  /** @param {string} raw */
  number: (raw) => (raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined),
  /** @param {string} raw */
  boolean: (raw) => ({ true: true, 1: true, false: false, 0: false })[raw.trim().toLowerCase()],
  /** @param {string} raw */
  list: (raw) => raw.split(',').map((s) => s.trim()).filter(Boolean),
  /** @param {string} raw */
  enum: (raw) => raw.trim()
}

/**
 * @param {string} name
 * @param {import('./config-schema').VarSpec} spec
 * @param {string} raw
 * @returns {{ value?: any, problem?: string }}
 */
function parseOne (name, spec, raw) {
  const value = parsers[spec.type](raw)
  if (value === undefined) return { problem: `${name}=${JSON.stringify(raw)} is not a valid ${spec.type}` }
  if (spec.type === 'enum' && !(spec.values || []).includes(value)) {
    return { problem: `${name}=${JSON.stringify(raw)} must be one of ${(spec.values || []).join(', ')}` }
  }
  if (spec.min !== undefined && value < spec.min) return { problem: `${name}=${value} must be at least ${spec.min}` }
  if (spec.max !== undefined && value > spec.max) return { problem: `${name}=${value} must be at most ${spec.max}` }
  if (spec.pattern !== undefined && !new RegExp(spec.pattern).test(value)) return { problem: `${name}=${JSON.stringify(raw)} must match ${spec.pattern}` }
  return { value }
}

/**
 * Settings that are valid alone but not together: TLS files without TLS, a
 * certificate without its key, SASL half configured or sending a password in
 * clear.
 * @param {Record<string, any>} c parsed values
 * @returns {string[]}
 */
function combinationProblems (c) {
  const problems = []
  for (const [client, tls] of [['KAFKA', c.KAFKA_TLS], ['DB', c.DB_TLS]]) {
    const files = ['CA_FILE', 'CERT_FILE', 'KEY_FILE'].map((f) => `${client}_TLS_${f}`)
    for (const name of files) if (c[name] && !tls) problems.push(`${name} is set but ${client}_TLS is not true`)
    const [, cert, key] = files
    if (Boolean(c[cert]) !== Boolean(c[key])) problems.push(`${cert} and ${key} go together: a client certificate needs its key`)
  }
  if (c.DB_TLS && c.DB_SOCKET) problems.push('DB_TLS is for TCP connections (DB_HOST, DB_PORT); DB_SOCKET is set')
  const sasl = c.KAFKA_SASL_MECHANISM !== 'none'
  for (const name of ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD']) {
    if (sasl && !c[name]) problems.push(`${name} is needed with KAFKA_SASL_MECHANISM=${c.KAFKA_SASL_MECHANISM}`)
    if (!sasl && c[name]) problems.push(`${name} is set but KAFKA_SASL_MECHANISM is none`)
  }
  if (c.KAFKA_SASL_MECHANISM === 'plain' && !c.KAFKA_TLS) problems.push('KAFKA_SASL_MECHANISM=plain sends the password as it is: only with KAFKA_TLS=true (or use scram-sha-512)')
  return problems
}

/**
 * Reads, validates and freezes the configuration. Every problem is reported
 * at once so an operator fixes them in one go.
 *
 * @param {Record<string, string | undefined>} [env] defaults to process.env
 * @returns {Config}
 */
function loadConfig (env = process.env) {
  /** @type {Record<string, any>} */
  const out = {}
  const problems = []
  for (const [name, spec] of Object.entries(schema)) {
    const raw = env[name]
    if (raw === undefined || raw === '') {
      out[name] = Array.isArray(spec.default) ? [...spec.default] : spec.default
      continue
    }
    const { value, problem } = parseOne(name, spec, raw)
    if (problem) problems.push(problem)
    else out[name] = value
  }
  if (!problems.length) problems.push(...combinationProblems(out))
  if (problems.length) throw new ConfigError(problems)
  for (const v of Object.values(out)) if (Array.isArray(v)) Object.freeze(v)
  return Object.freeze(out)
}

/**
 * The environment for a child process: this process's environment with
 * overrides applied. Lives here so that no other module touches process.env.
 *
 * @param {Record<string, string | number | undefined>} overrides
 * @returns {Record<string, string>}
 */
function childEnv (overrides = {}) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const [k, v] of Object.entries({ ...process.env, ...overrides })) {
    if (v !== undefined) env[k] = String(v)
  }
  return env
}

module.exports = { loadConfig, childEnv, ConfigError, schema }
