'use strict'

// Plain-data builders shared by the ledger unit tests: a config, two
// participants with USD accounts, a matching condition/fulfilment pair,
// prepare/fulfil/position commands and stored transfer rows.

const crypto = require('node:crypto')
const { loadConfig } = require('@switchyard/shared/config')
const { requestHash } = require('../../src/common/hash')

const config = loadConfig({})
const HUB = config.HUB_NAME
const POSITION_TOPIC = `${config.KAFKA_TOPIC_PREFIX}transfer-position`
const NOTIFICATION_TOPIC = `${config.KAFKA_TOPIC_PREFIX}notification`

const PAYER = 'payerfsp'
const PAYEE = 'payeefsp'
const PAYER_ACCOUNT = 11
const PAYEE_ACCOUNT = 22
const TRANSFER_ID = 'b51ec534-ee48-4575-b6a9-ead2955b8069'

const NOW = Date.parse('2025-03-01T12:00:00.000Z')
const EXPIRATION = '2025-03-01T12:01:00.000Z'
const EXPIRES_AT = Date.parse(EXPIRATION)

const FULFILMENT = Buffer.alloc(32, 7).toString('base64url')
const CONDITION = crypto.createHash('sha256').update(Buffer.from(FULFILMENT, 'base64url')).digest('base64url')
const OTHER_FULFILMENT = Buffer.alloc(32, 8).toString('base64url')

/** The same 32 bytes spelled with the last character's two unused bits set: decodes alike, not canonical. */
const nonCanonical = (b64url) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  return b64url.slice(0, 42) + alphabet[alphabet.indexOf(b64url[42]) | 1]
}

/** A participant view with one account per [currency, accountId, active]. */
const participant = (accounts, active = true) => ({
  active,
  accounts: new Map(accounts.map(([currency, accountId, accountActive = true]) => [currency, { accountId, active: accountActive }]))
})

const participants = () => new Map([
  [PAYER, participant([['USD', PAYER_ACCOUNT], ['JPY', 12]])],
  [PAYEE, participant([['USD', PAYEE_ACCOUNT], ['JPY', 23]])]
])

const preparePayload = (overrides = {}) => ({
  transferId: TRANSFER_ID,
  payerFsp: PAYER,
  payeeFsp: PAYEE,
  amount: { amount: '10', currency: 'USD' },
  ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNl',
  condition: CONDITION,
  expiration: EXPIRATION,
  ...overrides
})

const headers = (source, destination) => ({
  'fspiop-source': source,
  ...(destination ? { 'fspiop-destination': destination } : {}),
  'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
  date: 'Sat, 01 Mar 2025 12:00:00 GMT'
})

/** A command on the transfer-prepare topic as the prepare handler sees it. */
const prepareCommand = (payloadOverrides = {}, hdrs = headers(PAYER, PAYEE)) => {
  const payload = preparePayload(payloadOverrides)
  return { transferId: payload.transferId, headers: hdrs, payload, hash: requestHash(payload), trace: { traceparent: 'tp' } }
}

/** A stored transfer row (TransferRow), in flight after prepare by default. */
const transferRow = (overrides = {}) => ({
  transfer_id: TRANSFER_ID,
  payer_fsp: PAYER,
  payee_fsp: PAYEE,
  payer_account_id: PAYER_ACCOUNT,
  payee_account_id: PAYEE_ACCOUNT,
  amount: '10.0000',
  currency: 'USD',
  ilp_condition: CONDITION,
  expiration: new Date(EXPIRES_AT),
  request_hash: requestHash(preparePayload()),
  state: 'RECEIVED_PREPARE',
  error_code: null,
  error_description: null,
  fulfilment: null,
  fulfil_hash: null,
  completed_at: null,
  payee_reserved: 0,
  pending_payer_resends: 0,
  pending_payee_resends: 0,
  ...overrides
})

/** Rows keyed by transfer id. */
const rows = (...list) => new Map(list.map((r) => [r.transfer_id, r]))

/** A command on the transfer-fulfil topic as the fulfil handler sees it. */
const fulfilCommand = (type, { transferId = TRANSFER_ID, hdrs = headers(PAYEE, PAYER), payload, timestamp = NOW } = {}) => {
  const body = type === 'get' ? undefined : payload
  return { type, transferId, headers: hdrs, payload: body, hash: requestHash({ type, payload: body ?? null }), timestamp, trace: { traceparent: 'tp' } }
}

const fulfilPayload = (overrides = {}) => ({
  fulfilment: FULFILMENT, completedTimestamp: '2025-03-01T12:00:10.000Z', transferState: 'COMMITTED', ...overrides
})

const errorPayload = (errorCode = '5101', errorDescription = 'Payee rejected') => ({ errorInformation: { errorCode, errorDescription } })

/** A command on the transfer-position topic as the position handler sees it. */
const positionCommand = (action, transferId = TRANSFER_ID, extra = {}) => ({
  action,
  transferId,
  timestamp: NOW,
  trace: { traceparent: 'tp' },
  ...(action === 'reserve' ? { prepare: { headers: headers(PAYER, PAYEE), payload: preparePayload({ transferId }) } } : {}),
  ...extra
})

/** An account view: value, net debit cap and liquidity in ledger units (0.0001). */
const account = (value, netDebitCap, liquidity) => ({ value, netDebitCap, liquidity })

/** The parts of an outgoing notification a participant observes. */
const seen = (m) => ({
  to: m.value.to,
  method: m.value.method,
  path: m.value.path,
  from: m.value.headers['fspiop-source'],
  errorCode: m.value.body && m.value.body.errorInformation ? m.value.body.errorInformation.errorCode : undefined
})

module.exports = {
  config,
  HUB,
  POSITION_TOPIC,
  NOTIFICATION_TOPIC,
  PAYER,
  PAYEE,
  PAYER_ACCOUNT,
  PAYEE_ACCOUNT,
  TRANSFER_ID,
  NOW,
  EXPIRATION,
  EXPIRES_AT,
  FULFILMENT,
  CONDITION,
  OTHER_FULFILMENT,
  nonCanonical,
  participant,
  participants,
  preparePayload,
  headers,
  prepareCommand,
  transferRow,
  rows,
  fulfilCommand,
  fulfilPayload,
  errorPayload,
  positionCommand,
  account,
  seen
}
