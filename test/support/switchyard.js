'use strict'

// A whole Switchyard in the test process — the API, the admin API and every
// handler on the real local stack — with its own topics and consumer groups
// (a unique prefix), plus the calls a participant and an operator make.

const crypto = require('node:crypto')
const pino = require('pino')
const { testConfig, unique } = require('./config')
const { createLifecycle } = require('../../shared/src/lifecycle')
const { createRuntime } = require('../../shared/src/runtime')
const { createKafkaFromConfig, allTopicNames, ensureTopics } = require('../../shared/src/kafka')
const { startApi } = require('../../api-adapter/src/server')
const { startHandlers } = require('../../handlers/src/main')
const { CONTENT_TYPE } = require('../../perf/src/load/participant')

/**
 * @param {Record<string, string>} [overrides] configuration
 * @param {{ handlers?: string[] }} [opts] which handlers to start (all by default)
 */
async function startSwitchyard (overrides = {}, { handlers = ['all'] } = {}) {
  const id = unique('sy')
  const config = testConfig({
    KAFKA_TOPIC_PREFIX: `${id}.`,
    KAFKA_CLIENT_ID: id,
    KAFKA_PARTITIONS: '3',
    API_PORT: '0',
    ADMIN_PORT: '0',
    CALLBACK_BACKOFF_MS: '50',
    CALLBACK_MAX_BACKOFF_MS: '500',
    TIMEOUT_INTERVAL_MS: '100',
    ...overrides
  })
  const admin = createKafkaFromConfig(config).admin()
  await admin.connect()
  await ensureTopics(admin, allTopicNames(config), { partitions: config.KAFKA_PARTITIONS, replicationFactor: 1 })
  await admin.disconnect()
  const logger = pino({ level: config.LOG_LEVEL })
  const lifecycle = createLifecycle({ logger, timeoutMs: 10000, exit: () => {} })
  const runtime = await createRuntime({ config, logger, lifecycle })
  await startHandlers(runtime, handlers)
  const { url, adminUrl } = await startApi(runtime)

  /** @param {string} method @param {string} path @param {any} [body] */
  async function adminCall (method, path, body) {
    const res = await fetch(`${adminUrl}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }

  /**
   * A participant with a currency account, a net debit cap, deposited
   * liquidity and its callback endpoints.
   * @param {{ name: string, endpoints: { type: string, value: string }[] }} participant
   * @param {{ currency?: string, ndc?: string, deposit?: string }} [opts]
   */
  async function provision (participant, { currency = 'USD', ndc = '1000000', deposit = '1000000' } = {}) {
    const must = async (p, expected) => {
      const r = await p
      if (!expected.includes(r.status)) throw new Error(`admin call failed: ${r.status} ${JSON.stringify(r.body)}`)
      return r
    }
    await must(adminCall('POST', '/participants', { name: participant.name, currency }), [201])
    await adminCall('POST', `/participants/${config.HUB_NAME}/accounts`, { type: 'HUB_RECONCILIATION', currency })
    await must(adminCall('POST', `/participants/${participant.name}/initialPositionAndLimits`, { currency, limit: { type: 'NET_DEBIT_CAP', value: ndc }, initialPosition: '0' }), [201])
    for (const e of participant.endpoints) await must(adminCall('POST', `/participants/${participant.name}/endpoints`, e), [201])
    if (deposit !== '0') {
      const accounts = (await adminCall('GET', `/participants/${participant.name}/accounts`)).body
      const settlement = accounts.find((a) => a.ledgerAccountType === 'SETTLEMENT' && a.currency === currency)
      await must(adminCall('POST', `/participants/${participant.name}/accounts/${settlement.id}`, {
        transferId: crypto.randomUUID(), externalReference: 'test', action: 'recordFundsIn', reason: 'test', amount: { amount: deposit, currency }
      }), [202])
    }
  }

  /**
   * An FSPIOP request as a participant sends it.
   * @param {string} method @param {string} path @param {{ source: string, destination?: string, body?: any, headers?: Record<string, string | undefined> }} opts
   */
  async function fspiop (method, path, { source, destination, body, headers = {} }) {
    /** @type {Record<string, string>} */
    const h = { date: new Date().toUTCString(), 'fspiop-source': source, accept: CONTENT_TYPE }
    if (body !== undefined) h['content-type'] = CONTENT_TYPE
    if (destination) h['fspiop-destination'] = destination
    for (const [k, v] of Object.entries(headers)) { if (v === undefined) delete h[k]; else h[k] = v }
    const res = await fetch(`${url}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }

  /** @param {string} name @param {string} [currency] */
  async function position (name, currency = 'USD') {
    const { body } = await adminCall('GET', `/participants/${name}/positions?currency=${currency}`)
    return body.value
  }

  return {
    config,
    db: runtime.db,
    api: () => url,
    adminCall,
    provision,
    fspiop,
    position,
    /** Starts more handlers in this Switchyard. @param {string[]} names */
    startHandlers: (names) => startHandlers(runtime, names),
    stop: () => lifecycle.shutdown('test done')
  }
}

/**
 * A POST /transfers body.
 * @param {{ payer: string, payee: string, amount?: string, currency?: string, condition: string, expiresInMs?: number, transferId?: string }} p
 */
function prepareBody ({ payer, payee, amount = '100', currency = 'USD', condition, expiresInMs = 60000, transferId = crypto.randomUUID() }) {
  return {
    transferId,
    payerFsp: payer,
    payeeFsp: payee,
    amount: { amount, currency },
    ilpPacket: Buffer.from(`ilp-${transferId}`).toString('base64url'),
    condition,
    expiration: new Date(Date.now() + expiresInMs).toISOString()
  }
}

module.exports = { startSwitchyard, prepareBody }
