'use strict'

// docker-compose.yml cannot be run here (no Docker engine in CI), so it is
// checked statically: our services use only schema variables with valid values,
// and the whole file matches the compose specification.

const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('yaml')
const Ajv = require('ajv')
const addFormats = require('ajv-formats')
const draft07 = require('ajv/dist/refs/json-schema-draft-07.json')
const composeSpec = require('../fixtures/compose-spec.json')
const { loadConfig, schema } = require('../../shared/src/config')

const COMPOSE_FILE = path.join(__dirname, '..', '..', 'docker-compose.yml')
const HANDLER_NAMES = ['prepare', 'position', 'fulfil', 'timeout', 'notification']

const readCompose = () => parse(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true })

/**
 * Compose accepts a map or a list of KEY=VALUE strings; values become strings.
 * @param {Record<string, unknown> | string[]} [environment]
 * @returns {Record<string, string | undefined>}
 */
function toEnv (environment = {}) {
  const pairs = Array.isArray(environment)
    ? environment.map((item) => (item.includes('=') ? [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)] : [item, undefined]))
    : Object.entries(environment).map(([k, v]) => [k, v === null ? undefined : String(v)])
  return Object.fromEntries(pairs)
}

/** @param {any} compose @returns {Array<[string, any]>} the services built from our Dockerfile */
const ourServices = (compose) => Object.entries(compose.services).filter(([, service]) => service.build !== undefined)

/** @param {any} compose @returns {string[]} unknown names and invalid values, per service */
function envProblems (compose) {
  const problems = []
  for (const [name, service] of ourServices(compose)) {
    const env = toEnv(service.environment)
    for (const key of Object.keys(env)) if (!(key in schema)) problems.push(`${name}: ${key} is not in the config schema`)
    try {
      loadConfig(env)
    } catch (err) {
      problems.push(`${name}: ${err.message}`)
    }
  }
  return problems
}

function createSpecValidator () {
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats(ajv)
  // The spec names its meta-schema by https URL; ajv ships draft-07 under the http one.
  ajv.addMetaSchema({ ...draft07, $id: composeSpec.$schema })
  return ajv.compile(composeSpec)
}

describe('docker-compose.yml', () => {
  const compose = readCompose()
  const validate = createSpecValidator()
  const envOf = (/** @type {string} */ name) => toEnv(compose.services[name].environment)

  test('builds the api-adapter, the one-shot jobs and one service per handler from our Dockerfile', () => {
    const names = ourServices(compose).map(([name]) => name).sort()
    expect(names).toEqual(['api-adapter', 'migrate', 'topics', ...HANDLER_NAMES].sort())
  })

  test('our services set only schema variables, with values loadConfig accepts', () => {
    expect(envProblems(compose)).toEqual([])
  })

  test('our services never start a local stack and reach Kafka and MySQL by service name', () => {
    for (const [name, service] of ourServices(compose)) {
      const config = loadConfig(toEnv(service.environment))
      expect({ name, stack: config.STACK }).toEqual({ name, stack: 'off' })
      for (const broker of config.KAFKA_BROKERS) expect(compose.services).toHaveProperty([broker.split(':')[0]])
      expect(compose.services).toHaveProperty([config.DB_HOST])
    }
  })

  test('MySQL is created with the database, user and password our services use', () => {
    const mysql = envOf('mysql')
    const config = loadConfig(envOf('api-adapter'))
    expect([mysql.MYSQL_DATABASE, mysql.MYSQL_USER, mysql.MYSQL_PASSWORD]).toEqual([config.DB_NAME, config.DB_USER, config.DB_PASSWORD])
  })

  test('each handler service runs exactly its own handler and is health-checked on HEALTH_PORT\'s /health, the api-adapter on its /readyz', () => {
    for (const name of HANDLER_NAMES) {
      const service = compose.services[name]
      const config = loadConfig(envOf(name))
      expect(config.HANDLERS).toEqual([name])
      expect(service.command).toEqual(['node', '--initial-old-space-size=128', 'handlers/src/main.js'])
      expect(service.healthcheck.test.join(' ')).toContain(`'http://127.0.0.1:${config.HEALTH_PORT}/health'`)
    }
    const api = loadConfig(envOf('api-adapter'))
    expect(compose.services['api-adapter'].healthcheck.test.join(' ')).toContain(`'http://127.0.0.1:${api.API_PORT}/readyz'`)
  })

  test('the FSPIOP and admin APIs are reachable from the host, the admin API on its loopback only', () => {
    const api = loadConfig(envOf('api-adapter'))
    const ports = compose.services['api-adapter'].ports.map(String)
    // A server bound to the container's loopback cannot be reached through a published port.
    expect([api.API_HOST, api.ADMIN_HOST]).toEqual(['0.0.0.0', '0.0.0.0'])
    expect(ports).toContain(`${api.API_PORT}:${api.API_PORT}`)
    expect(ports).toContain(`127.0.0.1:${api.ADMIN_PORT}:${api.ADMIN_PORT}`)
    // On the network, so it asks for a token (compose fills in the default unless ADMIN_TOKEN is set).
    expect(api.ADMIN_TOKEN).toMatch(/^\$\{ADMIN_TOKEN:-.+\}$/)
  })

  test('matches the compose specification', () => {
    validate(compose)
    expect(validate.errors).toBeNull()
  })

  describe('rejects a broken copy', () => {
    // A JSON copy: aliased YAML nodes are shared objects, and structuredClone keeps them shared.
    const copy = () => JSON.parse(JSON.stringify(compose))

    test('with a variable that is not in the schema', () => {
      const broken = copy()
      broken.services.prepare.environment.NOT_A_VAR = 1
      expect(envProblems(broken)).toEqual(['prepare: NOT_A_VAR is not in the config schema'])
    })

    test('with a value the schema does not allow', () => {
      const broken = copy()
      broken.services['api-adapter'].environment.LOG_LEVEL = 'verbose'
      expect(envProblems(broken)).toEqual([expect.stringContaining('api-adapter: Invalid configuration')])
    })

    test('with ports that are not a list', () => {
      const broken = copy()
      broken.services['api-adapter'].ports = '123abc'
      expect(validate(broken)).toBe(false)
      expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: '/services/api-adapter/ports' }))
    })

    test('with a misspelled service key', () => {
      const broken = copy()
      broken.services.topics.dependson = broken.services.topics.depends_on
      expect(validate(broken)).toBe(false)
    })
  })
})
