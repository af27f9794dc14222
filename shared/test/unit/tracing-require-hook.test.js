'use strict'

// registerTracing() patches mysql2 for its SQL spans through
// @opentelemetry/instrumentation's require hook, then takes the hook out:
// left in, it resolves the path of every require() again, and kafkajs
// requires its request modules on every Kafka request (register.js). Run in
// a process of its own, as the API and the handler processes start.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { childEnv } = require('../../src/config')

const register = path.resolve(__dirname, '../../src/tracing/register.js')

/** @param {Record<string, string>} env */
function inChild (env) {
  const script = `
    const Module = require('node:module')
    const plainRequire = Module.prototype.require
    const plainBuiltin = process.getBuiltinModule
    const { registerTracing, shutdownTracing } = require(${JSON.stringify(register)})
    const { enabled } = registerTracing('hook-test')
    const mysql2 = require('mysql2')
    const conn = mysql2.createConnection({ host: '127.0.0.1', port: 1, connectTimeout: 1 })
    conn.on('error', () => {})
    const proto = Object.getPrototypeOf(conn)
    const out = {
      enabled,
      requireIsPlain: Module.prototype.require === plainRequire,
      builtinIsPlain: process.getBuiltinModule === plainBuiltin,
      queryTraced: Boolean(proto.query.__wrapped),
      executeTraced: Boolean(proto.execute.__wrapped)
    }
    conn.destroy()
    shutdownTracing().then(() => process.stdout.write(JSON.stringify(out)))
  `
  const child = spawnSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../../..'), env: childEnv({ NODE_ENV: 'test', LOG_LEVEL: 'fatal', ...env }), encoding: 'utf8', timeout: 30000 })
  if (child.status !== 0) throw new Error(`child exited ${child.status}: ${child.stderr}`)
  return JSON.parse(child.stdout)
}

test('with tracing on, mysql2 is patched and no require hook is left behind', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-hook-'))
  try {
    expect(inChild({ TRACING_EXPORTERS: 'file', TRACING_DIR: dir })).toEqual({
      enabled: true, requireIsPlain: true, builtinIsPlain: true, queryTraced: true, executeTraced: true
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('with tracing off, nothing is patched', () => {
  expect(inChild({ TRACING_EXPORTERS: '' })).toEqual({
    enabled: false, requireIsPlain: true, builtinIsPlain: true, queryTraced: false, executeTraced: false
  })
})
