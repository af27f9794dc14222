'use strict'

// helm/switchyard cannot be rendered here (CI machines have no helm binary),
// so it is checked statically: values use only schema variables, with values
// loadConfig accepts; the handlers map is the handler registry;
// values.schema.json is generated from both and accepts the shipped values;
// templates use only defined helpers and existing values; the hook jobs carry
// their hook annotations. docs/kubernetes.md describes the rendered checks.

const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('yaml')
const Ajv = require('ajv')
const { loadConfig, schema } = require('../../shared/src/config')
const { names } = require('../../handlers/src/registry')
const { renderValuesSchemaFile, settableNames, SECRET_VARS } = require('../../helm/values-schema')
const { version } = require('../../package.json')

const CHART = path.join(__dirname, '..', '..', 'helm', 'switchyard')
const read = (/** @type {string} */ rel) => fs.readFileSync(path.join(CHART, rel), 'utf8')
const readValues = () => parse(read('values.yaml'))
const ciValueFiles = () => fs.readdirSync(path.join(CHART, 'ci')).filter((f) => f.endsWith('.yaml')).map((f) => `ci/${f}`)
const templateFiles = () => fs.readdirSync(path.join(CHART, 'templates')).sort()

/**
 * Values as Helm coalesces them: maps merge key by key, anything else replaces.
 * @param {any} base @param {any} overrides @returns {any}
 */
function mergeValues (base, overrides) {
  const isMap = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null && !Array.isArray(v)
  if (!isMap(base) || !isMap(overrides)) return overrides === undefined ? base : overrides
  const out = { ...base }
  for (const [k, v] of Object.entries(overrides)) out[k] = mergeValues(base[k], v)
  return out
}

/** As the chart's `switchyard.envValue` helper renders a value: lists joined with commas. @param {unknown} value */
const toEnvValue = (value) => (Array.isArray(value) ? value.join(',') : String(value))

/** @param {Record<string, unknown>} [env] @returns {Record<string, string>} */
const toEnv = (env = {}) => Object.fromEntries(Object.entries(env).map(([k, v]) => [k, toEnvValue(v)]))

/**
 * Each process the chart runs and the environment it gets: the ConfigMap,
 * then the Secret, then what the chart sets, then the component's own env.
 * @param {any} values
 * @returns {Array<{ where: string, env: Record<string, unknown> | undefined, processEnv: Record<string, string> }>}
 */
function processes (values) {
  const { DB_PASSWORD, ADMIN_TOKEN } = values.secret
  const base = { ...toEnv(values.config), STACK: 'off', DB_PASSWORD, ADMIN_TOKEN }
  return [
    { where: 'config', env: values.config, processEnv: base },
    { where: 'apiAdapter.env', env: values.apiAdapter.env, processEnv: { ...base, ...toEnv(values.apiAdapter.env) } },
    ...Object.entries(values.handlers).map(([name, h]) => ({
      where: `handlers.${name}.env`,
      env: h.env,
      processEnv: { ...base, HANDLERS: name, ...toEnv(h.env) }
    }))
  ]
}

/** @param {any} values @returns {string[]} unknown or chart-owned names and invalid values */
function envProblems (values) {
  const problems = []
  for (const { where, env, processEnv } of processes(values)) {
    for (const name of Object.keys(env || {})) {
      if (!(name in schema)) problems.push(`${where}: ${name} is not in the config schema`)
      else if (!settableNames(schema).includes(name)) problems.push(`${where}: ${name} is set by the chart, the Secret or only the local stack`)
    }
    try {
      loadConfig(processEnv)
    } catch (err) {
      problems.push(`${where}: ${err.message}`)
    }
  }
  for (const name of Object.keys(values.secret)) {
    if (name !== 'existingSecret' && !SECRET_VARS.includes(name)) problems.push(`secret: ${name} is not a secret variable`)
  }
  return problems
}

/** @param {any} values @returns {string[]} how the handlers map differs from the registry */
function handlerProblems (values) {
  const problems = []
  const configured = Object.keys(values.handlers)
  for (const name of names()) if (!configured.includes(name)) problems.push(`handlers.${name} is missing`)
  for (const name of configured) if (!names().includes(name)) problems.push(`handlers.${name} is not in handlers/src/registry.js`)
  const partitions = Number(values.config.KAFKA_PARTITIONS)
  for (const [name, h] of Object.entries(values.handlers)) {
    if (typeof h.enabled !== 'boolean') problems.push(`handlers.${name}.enabled is not a boolean`)
    if (!Number.isInteger(h.replicas)) problems.push(`handlers.${name}.replicas is not an integer`)
    if (!h.resources?.requests) problems.push(`handlers.${name}.resources.requests is missing`)
    if (typeof h.env !== 'object' || h.env === null) problems.push(`handlers.${name}.env is not a map`)
    const { autoscaling } = h
    if (autoscaling && autoscaling.minReplicas > autoscaling.maxReplicas) problems.push(`handlers.${name}.autoscaling: minReplicas > maxReplicas`)
    // Consumers past the partition count sit idle; timeout is a poller, not a consumer.
    if (name !== 'timeout' && Math.max(h.replicas, autoscaling?.maxReplicas ?? 0) > partitions) {
      problems.push(`handlers.${name}: more replicas than KAFKA_PARTITIONS (${partitions})`)
    }
  }
  return problems
}

const INCLUDE = /\b(?:include|template)\s+"([^"]+)"/g
const DEFINE = /{{-?\s*define\s+"([^"]+)"\s*-?}}/g
const VALUES_PATH = /\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g

/**
 * @param {Record<string, string>} files template file name → text
 * @param {any} values
 * @returns {string[]} undefined or unused helpers, values paths that do not exist, tabs
 */
function templateProblems (files, values) {
  const problems = []
  const all = Object.values(files).join('\n')
  const defined = [...all.matchAll(DEFINE)].map((m) => m[1])
  const included = new Set([...all.matchAll(INCLUDE)].map((m) => m[1]))
  for (const name of included) if (!defined.includes(name)) problems.push(`"${name}" is included but never defined`)
  for (const name of defined) if (!included.has(name)) problems.push(`"${name}" is defined but never used`)
  for (const [file, text] of Object.entries(files)) {
    if (!/\.(yaml|tpl)$/.test(file) && file !== 'NOTES.txt') problems.push(`${file}: not a template Helm renders`)
    if (text.includes('\t')) problems.push(`${file}: contains a tab (YAML indentation is spaces)`)
    for (const [, dotted] of text.matchAll(VALUES_PATH)) {
      let node = values
      for (const key of dotted.slice(1).split('.')) node = node?.[key]
      if (node === undefined) problems.push(`${file}: .Values${dotted} is not in values.yaml`)
    }
  }
  return problems
}

/** @param {string} text @param {string} name @returns {string} `define "name"` up to the next comment or define */
function defineBody (text, name) {
  const start = text.indexOf(`define "${name}"`)
  if (start === -1) return ''
  const next = text.slice(start + 1).search(/\n{{(\/\*|-? *define )/)
  return next === -1 ? text.slice(start) : text.slice(start, start + 1 + next)
}

function createValuesValidator () {
  const ajv = new Ajv({ allErrors: true, strict: false })
  return ajv.compile(JSON.parse(read('values.schema.json')))
}

describe('helm/switchyard', () => {
  const values = readValues()
  const templates = Object.fromEntries(templateFiles().map((f) => [f, read(`templates/${f}`)]))
  const copy = () => JSON.parse(JSON.stringify(values))

  test('Chart.yaml is a v2 chart whose appVersion is the project version', () => {
    const chart = parse(read('Chart.yaml'))
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'switchyard', type: 'application', appVersion: version })
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+/)
  })

  test('values set only schema variables, with values loadConfig accepts in every process', () => {
    expect(envProblems(values)).toEqual([])
  })

  test('the handlers map names exactly the handlers in handlers/src/registry.js', () => {
    expect(Object.keys(values.handlers).sort()).toEqual(names().sort())
    expect(handlerProblems(values)).toEqual([])
  })

  test('Kafka and MySQL are external and the processes listen beyond loopback', () => {
    const config = loadConfig(processes(values)[0].processEnv)
    expect(config.STACK).toBe('off')
    expect([config.API_HOST, config.ADMIN_HOST]).toEqual(['0.0.0.0', '0.0.0.0'])
    expect(values.config).not.toHaveProperty('STACK')
    expect(values.config).not.toHaveProperty('HANDLERS')
  })

  test('the position handler never autoscales past the topic partitions', () => {
    expect(values.handlers.position.autoscaling.maxReplicas).toBeLessThanOrEqual(Number(values.config.KAFKA_PARTITIONS))
  })

  test('values.schema.json is what helm/values-schema.js generates (run `node helm/values-schema.js --write`)', () => {
    expect(read('values.schema.json')).toBe(renderValuesSchemaFile())
  })

  test('values.schema.json accepts values.yaml, alone and with every ci/ values file', () => {
    const validate = createValuesValidator()
    expect(ciValueFiles().length).toBeGreaterThan(0)
    for (const [file, merged] of [['values.yaml', values], ...ciValueFiles().map((f) => [f, mergeValues(values, parse(read(f)))])]) {
      validate(merged)
      expect({ file, errors: validate.errors }).toEqual({ file, errors: null })
    }
  })

  test('ci/ values files set only schema variables too', () => {
    for (const file of ciValueFiles()) {
      expect({ file, problems: envProblems(mergeValues(values, parse(read(file)))) }).toEqual({ file, problems: [] })
    }
  })

  test('templates use only defined helpers and values that exist', () => {
    expect(Object.keys(templates)).toEqual(expect.arrayContaining([
      '_helpers.tpl', 'NOTES.txt', 'api-adapter.yaml', 'configmap.yaml', 'handlers.yaml', 'hpa.yaml',
      'migrations-job.yaml', 'pdb.yaml', 'secret.yaml', 'serviceaccount.yaml', 'topics-job.yaml'
    ]))
    expect(templateProblems(templates, values)).toEqual([])
  })

  test('one template renders every handler: a Deployment per entry with HANDLERS=<name>', () => {
    const text = templates['handlers.yaml']
    expect(text).toContain('range $name, $h := .Values.handlers')
    expect(text).toContain('"fixedEnv" (dict "HANDLERS" $name)')
    expect(text).toContain('include "switchyard.deployment"')
    const deployment = defineBody(templates['_helpers.tpl'], 'switchyard.deployment')
    for (const expected of ['startupProbe:', 'readinessProbe:', 'livenessProbe:', '"path" "/health"', 'terminationGracePeriodSeconds:',
      'preStop:', 'checksum/config:', 'securityContext:', 'resources:']) expect(deployment).toContain(expected)
  })

  test('migrations and topics run as pre-install/pre-upgrade hook jobs, after the hook Secret', () => {
    const job = defineBody(templates['_helpers.tpl'], 'switchyard.hookJob')
    expect(job).toContain('kind: Job')
    expect(job).toContain('"helm.sh/hook": pre-install,pre-upgrade')
    expect(job).toContain('"helm.sh/hook-weight": {{ .weight | quote }}')
    expect(job).toContain('"helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded')
    expect(job).toMatch(/backoffLimit: {{ \$root\.Values\.jobs\.backoffLimit }}/)
    expect(values.jobs.backoffLimit).toBeGreaterThan(0)
    const weightOf = (/** @type {string} */ file) => Number(/"weight" (-?\d+)/.exec(templates[file])?.[1])
    expect(templates['migrations-job.yaml']).toContain('(list "node" "scripts/migrate.js")')
    expect(templates['topics-job.yaml']).toContain('(list "node" "scripts/create-topics.js")')
    const secretWeight = Number(/"helm.sh\/hook-weight": "(-?\d+)"/.exec(templates['secret.yaml'])?.[1])
    expect(secretWeight).toBeLessThan(weightOf('migrations-job.yaml'))
    expect(weightOf('migrations-job.yaml')).toBeLessThan(weightOf('topics-job.yaml'))
  })

  describe('rejects a broken copy', () => {
    test('with a config variable that is not in the schema', () => {
      const broken = copy()
      broken.config.KAFKA_BROKER = 'kafka:9092'
      expect(envProblems(broken)).toEqual(['config: KAFKA_BROKER is not in the config schema'])
      expect(createValuesValidator()(broken)).toBe(false)
    })

    test('with a handler env variable the chart sets itself', () => {
      const broken = copy()
      broken.handlers.prepare.env = { STACK: 'auto' }
      expect(envProblems(broken)).toEqual(['handlers.prepare.env: STACK is set by the chart, the Secret or only the local stack'])
      expect(createValuesValidator()(broken)).toBe(false)
    })

    test('with a value the schema does not allow', () => {
      const broken = copy()
      broken.handlers.position.env = { LOG_LEVEL: 'verbose' }
      expect(envProblems(broken)).toEqual([expect.stringContaining('handlers.position.env: Invalid configuration')])
    })

    test('with a handler missing or misspelled', () => {
      const broken = copy()
      broken.handlers.positon = broken.handlers.position
      delete broken.handlers.position
      expect(handlerProblems(broken)).toEqual(['handlers.position is missing', 'handlers.positon is not in handlers/src/registry.js'])
      expect(createValuesValidator()(broken)).toBe(false)
    })

    test('with a consumer that can outgrow the partitions', () => {
      const broken = copy()
      broken.handlers.position.autoscaling.maxReplicas = 7
      expect(handlerProblems(broken)).toEqual(['handlers.position: more replicas than KAFKA_PARTITIONS (6)'])
    })

    test('with a template that uses an unknown helper or value', () => {
      const broken = { ...templates, 'extra.yaml': '{{ include "switchyard.nope" . }}\nport: {{ .Values.apiAdapter.servce.port }}\n' }
      expect(templateProblems(broken, values)).toEqual([
        '"switchyard.nope" is included but never defined',
        'extra.yaml: .Values.apiAdapter.servce.port is not in values.yaml'
      ])
    })
  })
})
