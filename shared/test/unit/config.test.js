'use strict'

const { loadConfig, ConfigError, schema } = require('../../src/config')

test('defaults come from the schema and the result is frozen', () => {
  const config = loadConfig({})
  for (const [name, spec] of Object.entries(schema)) expect(config[name]).toEqual(spec.default)
  expect(Object.isFrozen(config)).toBe(true)
  expect(Object.isFrozen(config.KAFKA_BROKERS)).toBe(true)
  expect(() => { config.API_PORT = 1 }).toThrow(TypeError)
})

test('values are parsed by type', () => {
  const config = loadConfig({ API_PORT: '8080', KAFKA_BROKERS: 'a:1, b:2', LOG_LEVEL: 'debug', HANDLERS: 'prepare,position' })
  expect(config.API_PORT).toBe(8080)
  expect(config.KAFKA_BROKERS).toEqual(['a:1', 'b:2'])
  expect(config.LOG_LEVEL).toBe('debug')
  expect(config.HANDLERS).toEqual(['prepare', 'position'])
})

test('every problem is reported at once', () => {
  let error
  try {
    loadConfig({ API_PORT: 'eighty', LOG_LEVEL: 'loud', DB_POOL_MAX: '0', STACK: 'maybe' })
  } catch (err) { error = err }
  expect(error).toBeInstanceOf(ConfigError)
  // In schema order, so the message reads like the documentation.
  expect(error.problems).toEqual([
    'LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent',
    'API_PORT="eighty" is not a valid integer',
    'DB_POOL_MAX=0 must be at least 1',
    'STACK="maybe" must be one of auto, off'
  ])
  expect(error.message).toContain('API_PORT="eighty"')
})

test('bounded values: ports up to 65535, a sampling ratio up to 1, a bloom error rate above 0 and at most 0.5', () => {
  expect(() => loadConfig({ ADMIN_PORT: '65536' })).toThrow('ADMIN_PORT=65536 must be at most 65535')
  expect(loadConfig({ ADMIN_PORT: '65535' }).ADMIN_PORT).toBe(65535)
  expect(() => loadConfig({ TRACING_SAMPLE_RATIO: '1.5' })).toThrow('TRACING_SAMPLE_RATIO=1.5 must be at most 1')
  // At 0 the filter would need infinitely many hash functions: the prepare handler ran out of memory.
  expect(() => loadConfig({ BLOOM_ERROR_RATE: '0' })).toThrow('BLOOM_ERROR_RATE=0 must be at least 1e-9')
  expect(() => loadConfig({ BLOOM_ERROR_RATE: '1' })).toThrow('BLOOM_ERROR_RATE=1 must be at most 0.5')
  expect(loadConfig({ BLOOM_ERROR_RATE: '0.0001' }).BLOOM_ERROR_RATE).toBe(0.0001)
})

test('HUB_NAME must be a name the admin API accepts in its paths', () => {
  expect(loadConfig({ HUB_NAME: 'hub_eu-1' }).HUB_NAME).toBe('hub_eu-1')
  for (const bad of ['hub.eu', 'h', 'x'.repeat(31), 'hub eu']) {
    expect(() => loadConfig({ HUB_NAME: bad })).toThrow(`HUB_NAME=${JSON.stringify(bad)} must match ^[A-Za-z0-9_-]{2,30}$`)
  }
})

test('every variable is documented with a type, a default and a description', () => {
  for (const [name, spec] of Object.entries(schema)) {
    expect(name).toMatch(/^[A-Z][A-Z0-9_]+$/)
    expect(spec.description.length).toBeGreaterThan(10)
    expect(['string', 'integer', 'number', 'boolean', 'list', 'enum']).toContain(spec.type)
    expect(spec.default).toBeDefined()
    if (spec.type === 'enum') expect(spec.values).toContain(spec.default)
  }
})

test('TLS and SASL settings that only make sense together are refused together', () => {
  const problems = (env) => { try { loadConfig(env); return [] } catch (err) { return err.problems } }
  expect(problems({ KAFKA_TLS_CA_FILE: '/etc/ca.pem', DB_TLS_CA_FILE: '/etc/ca.pem' })).toEqual([
    'KAFKA_TLS_CA_FILE is set but KAFKA_TLS is not true',
    'DB_TLS_CA_FILE is set but DB_TLS is not true'
  ])
  expect(problems({ KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: '/c.pem', DB_TLS: 'true', DB_TLS_KEY_FILE: '/k.pem' })).toEqual([
    'KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together: a client certificate needs its key',
    'DB_TLS_CERT_FILE and DB_TLS_KEY_FILE go together: a client certificate needs its key'
  ])
  expect(problems({ DB_TLS: 'true', DB_SOCKET: '/run/mysqld.sock' })).toEqual(['DB_TLS is for TCP connections (DB_HOST, DB_PORT); DB_SOCKET is set'])
  expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'switch' })).toEqual(['KAFKA_SASL_PASSWORD is needed with KAFKA_SASL_MECHANISM=scram-sha-512'])
  expect(problems({ KAFKA_SASL_PASSWORD: 'secret' })).toEqual(['KAFKA_SASL_PASSWORD is set but KAFKA_SASL_MECHANISM is none'])
  // PLAIN sends the password itself: never over a connection anyone can read.
  expect(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }))
    .toEqual(['KAFKA_SASL_MECHANISM=plain sends the password as it is: only with KAFKA_TLS=true (or use scram-sha-512)'])
  expect(problems({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toEqual([])
  expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', DB_TLS: 'true', DB_TLS_CERT_FILE: '/c', DB_TLS_KEY_FILE: '/k' })).toEqual([])
  expect(problems({ KAFKA_SASL_MECHANISM: 'gssapi' })).toEqual(['KAFKA_SASL_MECHANISM="gssapi" must be one of none, plain, scram-sha-256, scram-sha-512'])
})
