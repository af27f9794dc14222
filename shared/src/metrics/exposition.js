'use strict'

// A strict reader of the Prometheus text exposition format (version 0.0.4),
// so tests assert on what a scraper reads, and the bench reads the handlers'
// metrics: every line must be a comment, HELP, TYPE or sample; every sample
// must belong to a family declared by a TYPE line before it (unless
// `requireType` is false); label values are unescaped.

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
// Inf and NaN in any case: Prometheus reads values with Go's ParseFloat (prom-client writes `Nan`).
const VALUE = '[-+]?(?:\\d+\\.?\\d*(?:[eE][-+]?\\d+)?|\\.\\d+(?:[eE][-+]?\\d+)?|[iI][nN][fF]|[nN][aA][nN])'
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"'
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`)
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`)
const HELP = new RegExp(`^# HELP (${NAME}) .*$`)
const SUFFIXES = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''] }

/**
 * @param {string} text
 * @param {{ requireType?: boolean }} [opts] requireType: a sample without a TYPE line before it is an error (default)
 * @returns {{ types: Map<string, string>, samples: { name: string, labels: Record<string, string>, value: number }[] }}
 */
function parseExposition (text, { requireType = true } = {}) {
  /** @type {Map<string, string>} */
  const types = new Map()
  const samples = []
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '' || (line.startsWith('#') && !/^# (TYPE|HELP) /.test(line))) continue
    const type = line.match(TYPE)
    if (type) {
      if (types.has(type[1])) throw new Error(`line ${i + 1}: second TYPE for ${type[1]}`)
      types.set(type[1], type[2])
      continue
    }
    if (HELP.test(line)) continue
    const sample = line.match(SAMPLE)
    if (!sample) throw new Error(`line ${i + 1} is not Prometheus text format: ${line}`)
    const [, name, labelText = '', value] = sample
    if (requireType && !familyOf(name, types)) throw new Error(`line ${i + 1}: sample ${name} has no TYPE before it`)
    /** @type {Record<string, string>} */
    const labels = {}
    for (const m of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[m[1]] = m[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c))
    }
    samples.push({ name, labels, value: toNumber(value) })
  }
  return { types, samples }
}

/** @param {string} text */
function toNumber (text) {
  const lower = text.toLowerCase()
  if (lower.endsWith('inf')) return lower.startsWith('-') ? -Infinity : Infinity
  return lower.endsWith('nan') ? NaN : Number(text)
}

/** @param {string} name @param {Map<string, string>} types */
function familyOf (name, types) {
  if (types.has(name)) return name
  for (const [family, type] of types) {
    if ((SUFFIXES[type] || []).some((s) => s && name === family + s)) return family
  }
  return undefined
}

/**
 * The value of the one sample with this name whose labels include `labels`
 * (undefined when there is none).
 * @param {ReturnType<typeof parseExposition>} parsed
 * @param {string} name
 * @param {Record<string, string>} [labels]
 */
function valueOf (parsed, name, labels = {}) {
  const found = parsed.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found.length ? found[0].value : undefined
}

module.exports = { parseExposition, valueOf }
