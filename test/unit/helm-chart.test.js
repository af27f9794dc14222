'use strict'

// CI machines have no helm binary, so helm/switchyard is checked statically:
// values use only schema variables, with values loadConfig accepts; the
// handlers map is the handler registry; values.schema.json is generated from
// both, accepts the shipped values and rejects misspelled keys; templates use
// only defined helpers and existing values; the hook jobs carry their hook
// annotations. helm/render.js (the Go-template subset the chart uses) renders
// it for the checks on objects: where ADMIN_TOKEN and KAFKA_SASL_PASSWORD
// come from, the TLS files' volume, what refuses to render, the scrape
// annotations. docs/kubernetes.md describes the checks made
// with helm itself.

const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('yaml')
const Ajv = require('ajv')
const { loadConfig, schema } = require('../../shared/src/config')
const { names } = require('../../handlers/src/registry')
const { renderValuesSchemaFile, settableNames, SECRET_VALUES } = require('../../helm/values-schema')
const { renderChart } = require('../../helm/render')
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
  const base = { ...toEnv(values.config), STACK: 'off', DB_PASSWORD: values.secret.DB_PASSWORD, KAFKA_SASL_PASSWORD: values.secret.KAFKA_SASL_PASSWORD, ADMIN_TOKEN: 'from-a-secret' }
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
    if (name !== 'existingSecret' && !SECRET_VALUES.includes(name)) problems.push(`secret: ${name} is not a secret value`)
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

// Rendered as release "pay" in namespace "payments": objects are pay-switchyard-<component>.
/** @param {object} [values] @param {Parameters<typeof renderChart>[0]} [options] */
const render = (values = {}, options = {}) => renderChart({ values, release: 'pay', namespace: 'payments', ...options })
/** @param {any[]} objects @param {string} kind @returns {any[]} */
const ofKind = (objects, kind) => objects.filter((o) => o.kind === kind)
/** @param {any[]} objects @param {string} kind @param {string} name */
const named = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name)
/** @param {any[]} objects @param {string} name @returns {any[]} every env entry called name, with its workload */
const envEntries = (objects, name) => objects
  .filter((o) => o.spec?.template?.spec?.containers)
  .flatMap((o) => o.spec.template.spec.containers.flatMap((/** @type {any} */ c) => (c.env || [])
    .filter((/** @type {any} */ e) => e.name === name)
    .map((/** @type {any} */ e) => ({ workload: o.metadata.name, ...e }))))

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
      '_helpers.tpl', 'NOTES.txt', 'admin-token-secret.yaml', 'api-adapter.yaml', 'configmap.yaml', 'handlers.yaml', 'hpa.yaml',
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
    for (const expected of ['startupProbe:', 'readinessProbe:', 'livenessProbe:', '"path" .readyPath', '"path" "/livez"', 'terminationGracePeriodSeconds:',
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

  test('renders with the default values and with every ci/ values file: one Deployment per enabled component', () => {
    for (const file of ['values.yaml', ...ciValueFiles()]) {
      const overrides = file === 'values.yaml' ? {} : parse(read(file))
      const { objects, values: merged } = render(overrides)
      const enabled = Object.entries(merged.handlers).filter(([, h]) => h.enabled).map(([name]) => name)
      expect({ file, deployments: ofKind(objects, 'Deployment').map((d) => d.metadata.name).sort() })
        .toEqual({ file, deployments: ['api-adapter', ...enabled].map((c) => `pay-switchyard-${c}`).sort() })
      expect(envEntries(objects, 'DB_PASSWORD').every((e) => e.valueFrom.secretKeyRef.key === 'DB_PASSWORD')).toBe(true)
    }
  })

  test('values.schema.json closes the top level and apiAdapter on the keys values.yaml has', () => {
    const schema = JSON.parse(read('values.schema.json'))
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.apiAdapter.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(Object.keys(values)))
    expect(Object.keys(schema.properties.apiAdapter.properties)).toEqual(expect.arrayContaining(Object.keys(values.apiAdapter)))
  })

  describe('the admin API token', () => {
    const TOKEN_SECRET = 'pay-switchyard-admin-token'
    /** @param {string} name @param {string} key */
    const fromSecret = (name, key) => [{ workload: 'pay-switchyard-api-adapter', name: 'ADMIN_TOKEN', valueFrom: { secretKeyRef: { name, key } } }]
    /** @param {any[]} objects */
    const generatedToken = (objects) => Buffer.from(named(objects, 'Secret', TOKEN_SECRET).data.ADMIN_TOKEN, 'base64').toString()

    test('by default is generated into a Secret and reaches only the api-adapter, through a required secretKeyRef', () => {
      const { objects, notes } = render()
      expect(envEntries(objects, 'ADMIN_TOKEN')).toEqual(fromSecret(TOKEN_SECRET, 'ADMIN_TOKEN'))
      expect(generatedToken(objects)).toMatch(/^[A-Za-z0-9]{48}$/)
      expect(named(objects, 'ConfigMap', 'pay-switchyard-config').data).not.toHaveProperty('ADMIN_TOKEN')
      expect(named(objects, 'Secret', 'pay-switchyard').data).not.toHaveProperty('ADMIN_TOKEN')
      expect(notes).toContain(`kubectl -n payments get secret ${TOKEN_SECRET} -o jsonpath='{.data.ADMIN_TOKEN}' | base64 -d`)
      expect(notes).not.toContain('WARNING: apiAdapter.adminAuth')
      // The database password's existingSecret does not change where the token comes from.
      expect(envEntries(render({ secret: { existingSecret: 'db-credentials' } }).objects, 'ADMIN_TOKEN')).toEqual(fromSecret(TOKEN_SECRET, 'ADMIN_TOKEN'))
    })

    test('the generated token differs per install and an upgrade keeps the one in the cluster', () => {
      expect(generatedToken(render().objects)).not.toBe(generatedToken(render().objects))
      /** @type {string[][]} */
      const lookups = []
      const lookup = (/** @type {string[]} */ ...args) => {
        lookups.push(args)
        return args[3] === TOKEN_SECRET ? { data: { ADMIN_TOKEN: Buffer.from('kept-token').toString('base64') } } : undefined
      }
      expect(generatedToken(render({}, { lookup }).objects)).toBe('kept-token')
      expect(lookups).toContainEqual(['v1', 'Secret', 'payments', TOKEN_SECRET])
    })

    test('comes from an existing Secret, under its key, when values name one; the chart then generates none', () => {
      const { objects, notes } = render({ apiAdapter: { adminAuth: { existingSecret: 'ops-admin', existingSecretKey: 'token' } } })
      expect(envEntries(objects, 'ADMIN_TOKEN')).toEqual(fromSecret('ops-admin', 'token'))
      expect(named(objects, 'Secret', TOKEN_SECRET)).toBeUndefined()
      expect(notes).toContain("kubectl -n payments get secret ops-admin -o jsonpath='{.data.token}' | base64 -d")
      expect(envEntries(render({ apiAdapter: { adminAuth: { existingSecret: 'ops-admin' } } }).objects, 'ADMIN_TOKEN')).toEqual(fromSecret('ops-admin', 'ADMIN_TOKEN'))
    })

    test('is off only with adminAuth.enabled: false, and then ADMIN_HOST must be loopback unless explicitly allowed', () => {
      const off = { enabled: false }
      expect(() => render({ apiAdapter: { adminAuth: off } })).toThrow('apiAdapter.adminAuth.enabled is false and ADMIN_HOST is 0.0.0.0')
      // The api-adapter's own env counts, not only config.
      expect(() => render({ config: { ADMIN_HOST: '127.0.0.1' }, apiAdapter: { adminAuth: off, env: { ADMIN_HOST: '10.0.0.1' } } }))
        .toThrow('ADMIN_HOST is 10.0.0.1')
      const loopback = { config: { ADMIN_HOST: '127.0.0.1' }, apiAdapter: { adminAuth: off } }
      const allowed = { apiAdapter: { adminAuth: { ...off, allowUnauthenticatedNetworkAccess: true } } }
      for (const overrides of [loopback, allowed]) {
        const { objects, notes } = render(overrides)
        expect(envEntries(objects, 'ADMIN_TOKEN')).toEqual([])
        // The api-adapter refuses a non-loopback admin API without a token unless told this was meant.
        expect(envEntries(objects, 'ADMIN_ALLOW_UNAUTHENTICATED')).toEqual(overrides === allowed ? [{ name: 'ADMIN_ALLOW_UNAUTHENTICATED', value: 'true', workload: 'pay-switchyard-api-adapter' }] : [])
        expect(named(objects, 'Secret', TOKEN_SECRET)).toBeUndefined()
        expect(notes).toContain('WARNING: apiAdapter.adminAuth.enabled is false')
      }
      // The opt-out alone leaves the token on.
      const optOutOnly = { apiAdapter: { adminAuth: { allowUnauthenticatedNetworkAccess: true } } }
      expect(envEntries(render(optOutOnly).objects, 'ADMIN_TOKEN')).toEqual(fromSecret(TOKEN_SECRET, 'ADMIN_TOKEN'))
      expect(envEntries(render(optOutOnly).objects, 'ADMIN_ALLOW_UNAUTHENTICATED')).toEqual([])
    })

    test('is never accepted as a plain value', () => {
      expect(() => render({ secret: { ADMIN_TOKEN: 's3cret' } })).toThrow('/secret must NOT have additional properties (ADMIN_TOKEN)')
      expect(() => render({ config: { ADMIN_TOKEN: 's3cret' } })).toThrow('/config must NOT have additional properties (ADMIN_TOKEN)')
      expect(() => render({ apiAdapter: { env: { ADMIN_TOKEN: 's3cret' } } })).toThrow('/apiAdapter/env must NOT have additional properties (ADMIN_TOKEN)')
      expect(() => render({ config: { ADMIN_ALLOW_UNAUTHENTICATED: 'true' } })).toThrow('/config must NOT have additional properties (ADMIN_ALLOW_UNAUTHENTICATED)')
      // A hub name the api-adapter would refuse at start is refused at render.
      expect(() => render({ config: { HUB_NAME: 'hub.eu' } })).toThrow('/config/HUB_NAME must match pattern')
    })
  })

  test('handlers are started on /livez and made ready on /health, the api-adapter started and made ready on /readyz (Kafka only), and all kept alive on /livez, which asks neither', () => {
    const deployments = ofKind(render().objects, 'Deployment')
    expect(deployments.length).toBe(names().length + 1)
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0]
      const api = d.metadata.name.endsWith('-api-adapter')
      // A handler waits out a database away at start, or loads its duplicate filter, unready:
      // its start-up probe asks only whether it runs, so neither restarts it.
      expect([d.metadata.name, c.startupProbe.httpGet.path, c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path])
        .toEqual([d.metadata.name, api ? '/readyz' : '/livez', api ? '/readyz' : '/health', '/livez'])
      expect(c.livenessProbe.httpGet.port).toBe(c.readinessProbe.httpGet.port)
      expect(c.startupProbe.httpGet.port).toBe(c.readinessProbe.httpGet.port)
    }
    expect(deployments.filter((d) => d.spec.template.spec.containers[0].readinessProbe.httpGet.path === '/readyz').map((d) => d.metadata.name))
      .toEqual([expect.stringMatching(/-api-adapter$/)])
  })

  test('a PodDisruptionBudget per Deployment lets drains evict pods that are not ready (every handler is, while MySQL is away); "" leaves the field out', () => {
    const budgets = (/** @type {object} */ values) => {
      const { objects } = render(values)
      return ofKind(objects, 'PodDisruptionBudget').map((p) => ({
        name: p.metadata.name,
        selects: ofKind(objects, 'Deployment').filter((d) => Object.entries(p.spec.selector.matchLabels)
          .every(([k, v]) => d.spec.template.metadata.labels[k] === v)).map((d) => d.metadata.name),
        maxUnavailable: p.spec.maxUnavailable,
        policy: p.spec.unhealthyPodEvictionPolicy
      }))
    }
    const deployments = ofKind(render().objects, 'Deployment').map((d) => d.metadata.name).sort()
    const byDefault = budgets({})
    expect(byDefault.map((b) => b.name).sort()).toEqual(deployments)
    for (const b of byDefault) expect(b).toEqual({ name: b.name, selects: [b.name], maxUnavailable: 1, policy: 'AlwaysAllow' })
    expect(budgets({ pdb: { unhealthyPodEvictionPolicy: '' } }).every((b) => b.policy === undefined)).toBe(true)
    expect(budgets({ pdb: { unhealthyPodEvictionPolicy: 'IfHealthyBudget' } }).every((b) => b.policy === 'IfHealthyBudget')).toBe(true)
    expect(budgets({ pdb: { enabled: false } })).toEqual([])
    const validate = createValuesValidator()
    expect(validate(mergeValues(readValues(), { pdb: { unhealthyPodEvictionPolicy: 'Always' } }))).toBe(false)
  })

  describe("Kafka's SASL password", () => {
    /** @param {any[]} objects @returns {string[]} every Deployment and hook Job */
    const workloads = (objects) => objects.filter((o) => ['Deployment', 'Job'].includes(o.kind)).map((o) => o.metadata.name).sort()
    /** @param {any[]} entries @returns {any[]} in workload order */
    const byWorkload = (entries) => [...entries].sort((a, b) => a.workload.localeCompare(b.workload))
    /** The hook jobs read the hook Secret: on first install they run before the release's. @param {string} workload */
    const chartSecretFor = (workload) => (/-(migrations|topics)$/.test(workload) ? 'pay-switchyard-hooks' : 'pay-switchyard')

    test("comes from the chart's Secret in every Deployment and both hook jobs, never from the ConfigMap", () => {
      const { objects } = render({ config: { KAFKA_TLS: true, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switchyard' }, secret: { KAFKA_SASL_PASSWORD: 's3cret' } })
      const all = workloads(objects)
      expect(all).toEqual(['api-adapter', ...names(), 'migrations', 'topics'].map((c) => `pay-switchyard-${c}`).sort())
      // One entry per workload, each from a Secret: none inline, in the hook jobs' copy of the configuration either.
      expect(byWorkload(envEntries(objects, 'KAFKA_SASL_PASSWORD'))).toEqual(all.map((workload) => ({
        workload,
        name: 'KAFKA_SASL_PASSWORD',
        valueFrom: { secretKeyRef: { name: chartSecretFor(workload), key: 'KAFKA_SASL_PASSWORD' } }
      })))
      for (const name of ['pay-switchyard', 'pay-switchyard-hooks']) {
        expect(Buffer.from(named(objects, 'Secret', name).data.KAFKA_SASL_PASSWORD, 'base64').toString()).toBe('s3cret')
      }
      expect(named(objects, 'ConfigMap', 'pay-switchyard-config').data).not.toHaveProperty('KAFKA_SASL_PASSWORD')
      // Empty by default, which the processes read as no password.
      expect(named(render().objects, 'Secret', 'pay-switchyard').data.KAFKA_SASL_PASSWORD).toBe('')
    })

    test('comes from secret.existingSecret as an optional key, so a Secret without SASL need not have it', () => {
      const { objects } = render({ secret: { existingSecret: 'db-credentials' } })
      expect(byWorkload(envEntries(objects, 'KAFKA_SASL_PASSWORD'))).toEqual(workloads(objects).map((workload) => ({
        workload,
        name: 'KAFKA_SASL_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'KAFKA_SASL_PASSWORD', optional: true } }
      })))
      expect(ofKind(objects, 'Secret').map((s) => s.metadata.name)).toEqual(['pay-switchyard-admin-token'])
      // DB_PASSWORD stays required: without it nothing can work.
      expect(envEntries(objects, 'DB_PASSWORD').every((e) => e.valueFrom.secretKeyRef.optional === undefined)).toBe(true)
    })

    test("the chart's own Secret refuses to render a mechanism without its password, or a password without a mechanism", () => {
      const sasl = { KAFKA_TLS: true, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switchyard' }
      expect(() => render({ config: sasl })).toThrow('config.KAFKA_SASL_MECHANISM is scram-sha-512 but secret.KAFKA_SASL_PASSWORD is empty')
      expect(() => render({ secret: { KAFKA_SASL_PASSWORD: 's3cret' } })).toThrow('secret.KAFKA_SASL_PASSWORD is set but config.KAFKA_SASL_MECHANISM is not')
      // An operator's Secret is not the chart's to read: the processes check it at start.
      expect(() => render({ config: sasl, secret: { existingSecret: 'kafka-and-db' } })).not.toThrow()
    })

    test('is never accepted as a plain value, only under `secret`', () => {
      expect(() => render({ config: { KAFKA_SASL_PASSWORD: 's3cret' } })).toThrow('/config must NOT have additional properties (KAFKA_SASL_PASSWORD)')
      expect(() => render({ apiAdapter: { env: { KAFKA_SASL_PASSWORD: 's3cret' } } })).toThrow('/apiAdapter/env must NOT have additional properties (KAFKA_SASL_PASSWORD)')
      expect(() => render({ handlers: { prepare: { env: { KAFKA_SASL_PASSWORD: 's3cret' } } } })).toThrow('/handlers/prepare/env must NOT have additional properties (KAFKA_SASL_PASSWORD)')
      expect(SECRET_VALUES).toContain('KAFKA_SASL_PASSWORD')
    })
  })

  describe('tlsFiles', () => {
    /** @param {any[]} objects @returns {Record<string, { mounts: any[], volumes: any[] }>} the TLS files' mounts and volumes of every Deployment and Job */
    const tlsMounts = (objects) => Object.fromEntries(objects.filter((o) => ['Deployment', 'Job'].includes(o.kind)).map((o) => {
      const spec = o.spec.template.spec
      return [o.metadata.name, {
        mounts: spec.containers.flatMap((/** @type {any} */ c) => c.volumeMounts.filter((/** @type {any} */ m) => m.name !== 'tmp')),
        volumes: spec.volumes.filter((/** @type {any} */ v) => v.name !== 'tmp')
      }]
    }))

    test('secretName mounts that Secret read-only at mountPath in every Deployment and both hook jobs', () => {
      for (const [overrides, mountPath, defaultMode] of [
        [{ tlsFiles: { secretName: 'switchyard-tls' } }, '/etc/switchyard/tls', 0o444],
        [{ tlsFiles: { secretName: 'switchyard-tls', mountPath: '/var/run/tls' } }, '/var/run/tls', 0o444],
        // With an fsGroup the files get that group: readable without being world-readable.
        [{ tlsFiles: { secretName: 'switchyard-tls' }, podSecurityContext: { fsGroup: 1000 } }, '/etc/switchyard/tls', 0o440]
      ]) {
        const mounts = tlsMounts(render(overrides).objects)
        expect(Object.keys(mounts).sort()).toEqual(['api-adapter', ...names(), 'migrations', 'topics'].map((c) => `pay-switchyard-${c}`).sort())
        for (const [workload, found] of Object.entries(mounts)) {
          expect({ workload, ...found }).toEqual({
            workload,
            mounts: [{ name: 'tls-files', mountPath, readOnly: true }],
            volumes: [{ name: 'tls-files', secret: { secretName: 'switchyard-tls', defaultMode } }]
          })
        }
      }
    })

    test('without secretName nothing is mounted', () => {
      const mounts = tlsMounts(render({ tlsFiles: { mountPath: '/var/run/tls' } }).objects)
      expect(Object.keys(mounts).length).toBe(names().length + 3)
      for (const [workload, found] of Object.entries(mounts)) expect({ workload, ...found }).toEqual({ workload, mounts: [], volumes: [] })
    })

    test('the schema wants an absolute mountPath and no other keys', () => {
      expect(() => render({ tlsFiles: { secretName: 'switchyard-tls', mountPath: 'tls' } })).toThrow('/tlsFiles/mountPath must match pattern "^/"')
      expect(() => render({ tlsFiles: { secret: 'switchyard-tls' } })).toThrow('/tlsFiles must NOT have additional properties (secret)')
    })

    test('values naming the mounted files with SASL_SSL and MySQL over TLS pass loadConfig in every process', () => {
      const merged = mergeValues(copy(), {
        config: { KAFKA_TLS: true, KAFKA_TLS_CA_FILE: '/etc/switchyard/tls/kafka-ca.crt', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switchyard', DB_TLS: true, DB_TLS_CA_FILE: '/etc/switchyard/tls/db-ca.pem' },
        secret: { KAFKA_SASL_PASSWORD: 's3cret' },
        tlsFiles: { secretName: 'switchyard-tls' }
      })
      expect(envProblems(merged)).toEqual([])
      expect(createValuesValidator()(merged)).toBe(true)
      // A mechanism without the password is refused at start, with the setting's name.
      expect(envProblems(mergeValues(merged, { secret: { KAFKA_SASL_PASSWORD: '' } }))).toContainEqual(expect.stringContaining('KAFKA_SASL_PASSWORD is needed with KAFKA_SASL_MECHANISM=scram-sha-512'))
    })
  })

  describe('metrics', () => {
    /** @param {any[]} objects @returns {Record<string, { port: number, annotations: Record<string, string> }>} */
    const scrapeTargets = (objects) => Object.fromEntries(ofKind(objects, 'Deployment').map((d) => {
      const container = d.spec.template.spec.containers[0]
      const port = container.ports.find((/** @type {any} */ p) => p.name === container.readinessProbe.httpGet.port).containerPort
      const annotations = Object.fromEntries(Object.entries(d.spec.template.metadata.annotations).filter(([k]) => k.startsWith('prometheus.io/')))
      return [d.metadata.name.replace('pay-switchyard-', ''), { port, annotations }]
    }))

    test('every pod is annotated for scraping /metrics on the port of its /health', () => {
      const targets = scrapeTargets(render({ handlers: { fulfil: { env: { HEALTH_PORT: 9100 } } } }).objects)
      expect(Object.keys(targets).sort()).toEqual(['api-adapter', ...names()].sort())
      expect([targets['api-adapter'].port, targets.prepare.port, targets.fulfil.port]).toEqual([3000, 3001, 9100])
      for (const [name, { port, annotations }] of Object.entries(targets)) {
        expect({ name, annotations }).toEqual({ name, annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' } })
      }
    })

    test('metrics.scrapeAnnotations: false leaves the annotations out; podAnnotations override them', () => {
      const off = scrapeTargets(render({ metrics: { scrapeAnnotations: false } }).objects)
      expect(Object.values(off).map((t) => t.annotations)).toEqual(Object.values(off).map(() => ({})))
      const overridden = scrapeTargets(render({ podAnnotations: { 'prometheus.io/scrape': 'false' } }).objects)
      expect(Object.values(overridden).every((t) => t.annotations['prometheus.io/scrape'] === 'false')).toBe(true)
    })
  })

  describe('rejects a broken copy', () => {
    test('with a misspelled top-level or apiAdapter key', () => {
      const validate = createValuesValidator()
      const misspelled = [
        ['', { ...copy(), imagePullSecret: [{ name: 'registry' }] }, 'imagePullSecret'],
        ['/apiAdapter', { ...copy(), apiAdapter: { ...copy().apiAdapter, replica: 3 } }, 'replica']
      ]
      for (const [instancePath, broken, key] of misspelled) {
        expect(validate(broken)).toBe(false)
        expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath, params: { additionalProperty: key } }))
      }
    })

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

    test('an integer given as a string gets past the schema exactly when the processes accept it, bounds included', () => {
      const validate = createValuesValidator()
      const integers = settableNames(schema).filter((name) => schema[name].type === 'integer')
      const disagreements = []
      for (const name of integers) {
        const spec = schema[name]
        const candidates = new Set(['-1', '-0', '-00', '0', '1', '9', '10', '99', '100', '1023', '1024', '65535', '65536', '1000000', ' 42 ', '007'])
        for (const bound of [spec.min, spec.max]) {
          if (bound === undefined) continue
          for (const near of [bound - 1, bound, bound + 1]) for (const raw of [String(near), `00${near}`]) candidates.add(raw)
        }
        for (const raw of candidates) {
          const values = copy()
          values.config[name] = raw
          let processes = true
          try { loadConfig({ STACK: 'off', [name]: raw }) } catch { processes = false }
          if (validate(values) !== processes) disagreements.push(`${name}=${JSON.stringify(raw)}: schema ${!processes}, processes ${processes}`)
        }
      }
      expect(disagreements).toEqual([])
    })

    test('a port above 65535 is refused by the schema, given as a number or a string', () => {
      const validate = createValuesValidator()
      for (const port of [65536, '65536', '070000']) {
        const values = copy()
        values.config.HEALTH_PORT = port
        expect(validate(values)).toBe(false)
      }
      expect(() => loadConfig({ STACK: 'off', HEALTH_PORT: '65536' })).toThrow(/HEALTH_PORT=65536 must be at most 65535/)
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
