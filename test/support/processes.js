'use strict'

// Starts Switchyard processes the way an operator does, for tests that check
// what a user sees: output, /health, shutdown on SIGTERM.

const path = require('node:path')
const { spawn } = require('node:child_process')
const { childEnv } = require('../../shared/src/config')
const { waitUntil } = require('./wait')
const { unique } = require('./config')

const root = path.join(__dirname, '..', '..')

/**
 * Topics and consumer groups of its own unless `env` names them: a process
 * on the default prefix and client id would join the consumer groups of a
 * switch the developer runs with `npm start` on the same stack, and take
 * its transfers into the test database.
 * @param {string} script path relative to the repository root
 * @param {string[]} args
 * @param {Record<string, string>} env overrides
 */
function startProcess (script, args, env) {
  const id = unique('proc')
  const proc = spawn(process.execPath, [path.join(root, script), ...args], {
    cwd: root,
    env: childEnv({ NODE_ENV: 'test', LOG_LEVEL: 'warn', DB_NAME: 'switchyard_test', KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id, ...env }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  proc.stdout.on('data', (d) => { output += d })
  proc.stderr.on('data', (d) => { output += d })
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
  return {
    proc,
    exited,
    output: () => output,
    /** @param {RegExp} pattern */
    waitForOutput: (pattern, timeoutMs = 60000) => waitUntil(() => output.match(pattern), { timeoutMs, what: `${pattern} in output:\n${output}` }),
    async stop () {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM')
      return exited
    }
  }
}

/**
 * The API and every handler in two processes, as operators and the bench run
 * them, once each says it serves. Topics come first, as an operator creates
 * them (`env` names their prefix).
 * @param {Record<string, string>} env
 * @param {Array<() => Promise<unknown>>} closers where their stops go, for afterAll
 */
async function startApart (env, closers) {
  const { createTopics } = require('../../scripts/stack/index')
  const { testConfig } = require('./config')
  await createTopics(testConfig(env))
  const api = startProcess('api-adapter/src/server.js', [], { ...env, API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info' })
  const handlers = startProcess('handlers/src/main.js', [], { ...env, HANDLERS: 'all', HEALTH_PORT: '0', LOG_LEVEL: 'info' })
  closers.push(() => api.stop(), () => handlers.stop())
  const [, apiUrl] = await api.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
  const [, adminUrl] = await api.waitForOutput(/"adminUrl":"(http:\/\/[^"]+)"/)
  await handlers.waitForOutput(/handlers running/)
  return { apiUrl, adminUrl, stop: async () => [await api.stop(), await handlers.stop()] }
}

module.exports = { startProcess, startApart }
