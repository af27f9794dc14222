'use strict'

// What a participant system and an operator send to a switch: FSPIOP
// requests to the API and provisioning calls to the admin API. Speaks only
// the public APIs, so it can drive any FSPIOP-compatible switch.

const crypto = require('node:crypto')

const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1'

/**
 * @param {{ apiUrl: string, adminUrl: string, hubName: string }} opts
 */
function createClient ({ apiUrl, adminUrl, hubName }) {
  /** @param {string} method @param {string} path @param {any} [body] */
  async function adminCall (method, path, body) {
    const res = await fetch(`${adminUrl}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }

  /** @param {Promise<{ status: number, body: any }>} call @param {number[]} expected */
  async function must (call, expected) {
    const r = await call
    if (!expected.includes(r.status)) throw new Error(`admin call failed: ${r.status} ${JSON.stringify(r.body)}`)
    return r
  }

  /**
   * A participant with a currency account, a net debit cap, deposited
   * liquidity and its callback endpoints.
   * @param {{ name: string, endpoints: { type: string, value: string }[] }} participant
   * @param {{ currency?: string, ndc?: string, deposit?: string }} [opts]
   */
  async function provision (participant, { currency = 'USD', ndc = '1000000', deposit = '1000000' } = {}) {
    await must(adminCall('POST', '/participants', { name: participant.name, currency }), [201])
    // The hub's reconciliation account receives funds in; it may exist already.
    await adminCall('POST', `/participants/${hubName}/accounts`, { type: 'HUB_RECONCILIATION', currency })
    await must(adminCall('POST', `/participants/${participant.name}/initialPositionAndLimits`, { currency, limit: { type: 'NET_DEBIT_CAP', value: ndc }, initialPosition: '0' }), [201])
    for (const e of participant.endpoints) await must(adminCall('POST', `/participants/${participant.name}/endpoints`, e), [201])
    if (deposit !== '0') {
      const accounts = (await adminCall('GET', `/participants/${participant.name}/accounts`)).body
      const settlement = accounts.find((a) => a.ledgerAccountType === 'SETTLEMENT' && a.currency === currency)
      await must(adminCall('POST', `/participants/${participant.name}/accounts/${settlement.id}`, {
        transferId: crypto.randomUUID(), externalReference: 'provisioning', action: 'recordFundsIn', reason: 'initial liquidity', amount: { amount: deposit, currency }
      }), [202])
    }
  }

  /**
   * An FSPIOP request as a participant sends it; `headers` entries set to
   * undefined are left out.
   * @param {string} method @param {string} path @param {{ source: string, destination?: string, body?: any, text?: string, headers?: Record<string, string | undefined> }} opts
   *   text: the body as sent, instead of JSON.stringify(body)
   */
  async function fspiop (method, path, { source, destination, body, text: sent, headers = {} }) {
    /** @type {Record<string, string>} */
    // Content-Type on every request, GET too: FSPIOP requires it.
    const h = { date: new Date().toUTCString(), 'fspiop-source': source, accept: CONTENT_TYPE, 'content-type': CONTENT_TYPE }
    if (destination) h['fspiop-destination'] = destination
    for (const [k, v] of Object.entries(headers)) { if (v === undefined) delete h[k]; else h[k] = v }
    const res = await fetch(`${apiUrl}${path}`, { method, headers: h, body: sent ?? (body === undefined ? undefined : JSON.stringify(body)) })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }

  /** A participant's position in a currency, as the admin API reports it. @param {string} name @param {string} [currency] */
  async function position (name, currency = 'USD') {
    const { body } = await adminCall('GET', `/participants/${name}/positions?currency=${currency}`)
    return body.value
  }

  return { adminCall, provision, fspiop, position }
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

module.exports = { createClient, prepareBody, CONTENT_TYPE }
