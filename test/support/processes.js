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

/**
 * A payer and a payee (simulated participants) provisioned on a switch
 * reached at these URLs, and how to send one transfer between them: the payee
 * fulfils it, and it resolves with the transfer id once both have been told
 * COMMITTED.
 * @param {{ apiUrl: string, adminUrl: string }} urls
 * @param {Array<() => Promise<unknown>>} closers where the participants' stops go
 * @param {string} prefix of the participants' names
 */
async function startPair ({ apiUrl, adminUrl }, closers, prefix) {
  const { createClient, prepareBody } = require('../../perf/src/load/client')
  const { startParticipant, newCondition } = require('../../perf/src/load/participant')
  const client = createClient({ apiUrl, adminUrl, hubName: 'Hub' })
  const payer = await startParticipant(unique(`${prefix}payer`), { api: () => apiUrl })
  const payee = await startParticipant(unique(`${prefix}payee`), { api: () => apiUrl })
  closers.push(() => payer.close(), () => payee.close())
  await client.provision(payer)
  await client.provision(payee)
  /** @param {string} amount @returns {Promise<string>} */
  async function commitTransfer (amount) {
    const { fulfilment, condition } = newCondition()
    const body = prepareBody({ payer: payer.name, payee: payee.name, condition, amount })
    payee.plan(body.transferId, { action: 'fulfil', fulfilment })
    expect((await client.fspiop('POST', '/transfers', { source: payer.name, body })).status).toBe(202)
    await payer.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'COMMITTED')
    await payee.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'COMMITTED')
    return body.transferId
  }
  return { payer, payee, commitTransfer }
}

module.exports = { startProcess, startApart, startPair }
