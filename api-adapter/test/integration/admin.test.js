'use strict'

// The admin API against the real database: every test creates its own
// participants, and the file uses a hub of its own (a unique HUB_NAME), so
// hub balances are not moved by other test files.

const crypto = require('node:crypto')
const { testConfig, unique } = require('../../../test/support/config')
const { createDb } = require('@switchyard/shared/db')
const { createLogger } = require('@switchyard/shared/logger')
const { parseAmount, formatAmount } = require('@switchyard/shared/money')
const { buildAdminApp } = require('../../src/admin/app')
const { startTcpRelay } = require('../../../test/support/tcp-relay')

const HUB = unique('hub')
const config = testConfig({ HUB_NAME: HUB })
const db = createDb(config)
const app = buildAdminApp({ config, logger: createLogger(config), db })
// Real HTTP on an ephemeral port rather than app.inject(): light-my-request
// needs cookie@2, which is ESM-only, and jest's CommonJS runtime cannot load it.
let BASE = ''
beforeAll(async () => { BASE = await app.listen({ host: '127.0.0.1', port: 0 }) })
afterAll(async () => { await app.close(); await db.destroy() })

const newName = () => unique('dfsp').slice(0, 30)
const error = (errorCode, errorDescription) => ({ errorInformation: { errorCode, errorDescription } })
/**
 * @param {string} method
 * @param {string} path
 * @param {object | string} [payload] a string is sent as it is
 * @param {{ base?: string, headers?: Record<string, string> }} [opts]
 */
async function call (method, path, payload, { base = BASE, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: payload === undefined || typeof payload === 'string' ? payload : JSON.stringify(payload)
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}
const account = (ledgerAccountType, currency, isActive = 1) =>
  ({ id: expect.any(Number), ledgerAccountType, currency, isActive, createdDate: expect.any(String) })
const participantBody = (name, accounts, isActive = 1) => ({
  name, id: `${BASE}/participants/${name}`, created: expect.any(String), isActive, links: { self: `${BASE}/participants/${name}` }, accounts
})

async function createParticipant (currency = 'USD', name = newName()) {
  expect((await call('POST', '/participants', { name, currency })).status).toBe(201)
  return name
}
async function ensureHubAccount (type, currency) {
  const { status, body } = await call('POST', `/participants/${HUB}/accounts`, { type, currency })
  if (status !== 201) expect(body).toEqual(error('3000', `Generic client error - the hub already has a ${currency} ${type} account`))
}
/** Values by "TYPE CURRENCY" (hub accounts too), and ids. */
async function balances (name) {
  const { body } = await call('GET', `/participants/${name}/accounts`)
  return Object.fromEntries(body.map((a) => [`${a.ledgerAccountType} ${a.currency}`, a]))
}
async function fundedParticipant ({ currency = 'USD', deposit = '0', initialPosition = '0' } = {}) {
  const name = await createParticipant(currency)
  await ensureHubAccount('HUB_RECONCILIATION', currency)
  await call('POST', `/participants/${name}/initialPositionAndLimits`, { currency, limit: { type: 'NET_DEBIT_CAP', value: '100000' }, initialPosition })
  const settlementId = (await balances(name))[`SETTLEMENT ${currency}`].id
  if (deposit !== '0') expect((await funds(name, settlementId, 'recordFundsIn', deposit, currency)).status).toBe(202)
  return { name, settlementId, fundsUrl: `/participants/${name}/accounts/${settlementId}` }
}
function funds (name, accountId, action, amount, currency = 'USD', transferId = crypto.randomUUID()) {
  const request = { transferId, externalReference: 'bank-ref-1', action, reason: 'test', amount: { amount, currency } }
  return call('POST', `/participants/${name}/accounts/${accountId}`, request).then((res) => ({ ...res, transferId, request }))
}
const hubValue = async (currency) => (await balances(HUB))[`HUB_RECONCILIATION ${currency}`].value
const changesOf = (transferId) => db('participant_position_change').select('account_id', 'change', 'value_after').where({ transfer_id: transferId }).orderBy('id')
const stateOf = async (transferId) => (await db('funds_transfer').select('state').where({ transfer_id: transferId }).first())?.state

test('creates a participant, adds a currency, refuses the same currency twice, lists and gets it', async () => {
  const name = newName()
  const created = await call('POST', '/participants', { name, currency: 'USD' })
  expect(created).toEqual({ status: 201, body: participantBody(name, [account('POSITION', 'USD'), account('SETTLEMENT', 'USD')]) })
  const withEur = await call('POST', '/participants', { name, currency: 'EUR' })
  expect(withEur).toEqual({ status: 201, body: participantBody(name, [...created.body.accounts, account('POSITION', 'EUR'), account('SETTLEMENT', 'EUR')]) })
  expect(await call('POST', '/participants', { name, currency: 'USD' }))
    .toEqual({ status: 400, body: error('3000', `Generic client error - participant ${name} already has USD accounts`) })
  expect(await call('GET', `/participants/${name}`)).toEqual({ status: 200, body: withEur.body })
  const all = await call('GET', '/participants')
  expect(all.body.filter((p) => p.name === name)).toEqual([withEur.body])
})

test('deactivates and activates a participant and one of its accounts', async () => {
  const name = await createParticipant()
  expect(await call('PUT', `/participants/${name}`, { isActive: false }))
    .toEqual({ status: 200, body: participantBody(name, [account('POSITION', 'USD'), account('SETTLEMENT', 'USD')], 0) })
  expect((await call('PUT', `/participants/${name}`, { isActive: true })).body.isActive).toBe(1)
  const positionId = (await balances(name))['POSITION USD'].id
  expect(await call('PUT', `/participants/${name}/accounts/${positionId}`, { isActive: false })).toEqual({ status: 200, body: undefined })
  expect((await call('GET', `/participants/${name}`)).body.accounts.map((a) => a.isActive)).toEqual([0, 1])
  expect(await call('PUT', `/participants/${name}/accounts/999999999`, { isActive: true }))
    .toEqual({ status: 404, body: error('3200', `Generic ID not found - account 999999999 of participant ${name} not found`) })
})

test('answers unknown participants with 404 3200, bad requests with 3100/3101/3102/3103', async () => {
  const missing = newName()
  const notFound = { status: 404, body: error('3200', `Generic ID not found - participant ${missing} not found`) }
  expect(await call('GET', `/participants/${missing}`)).toEqual(notFound)
  expect(await call('GET', `/participants/${missing}/positions`)).toEqual(notFound)
  expect(await call('PUT', `/participants/${missing}`, { isActive: false })).toEqual(notFound)
  expect(await call('GET', '/nowhere')).toEqual({ status: 404, body: error('3002', 'Unknown URI - GET /nowhere') })
  expect(await call('POST', '/participants', { name: 'x', currency: 'USD' }))
    .toEqual({ status: 400, body: error('3100', 'Generic validation error - name must NOT have fewer than 2 characters') })
  expect(await call('POST', '/participants', { name: newName(), currency: 'XYZ' }))
    .toEqual({ status: 400, body: error('3100', 'Generic validation error - currency must be a known ISO 4217 currency code') })
  expect(await call('POST', '/participants', { name: newName() })).toEqual({ status: 400, body: error('3102', 'Missing mandatory element - currency') })
  expect(await call('POST', '/participants', { name: newName(), currency: 'USD', colour: 'red' }))
    .toEqual({ status: 400, body: error('3103', 'Too many elements - colour is not allowed') })
  expect(await call('PUT', `/participants/${missing}`, { isActive: 'false' }))
    .toEqual({ status: 400, body: error('3101', 'Malformed syntax - isActive must be boolean') })
  expect(await call('GET', `/participants/${missing}/positions?currency=usd`))
    .toEqual({ status: 400, body: error('3100', 'Generic validation error - query parameter currency must be a known ISO 4217 currency code') })
  expect((await call('POST', '/participants', '{"name":')).body.errorInformation.errorCode).toBe('3101')
})

test('sets the initial position and limit once, then updates the limit', async () => {
  const name = await createParticipant()
  const url = `/participants/${name}/initialPositionAndLimits`
  expect(await call('PUT', `/participants/${name}/limits`, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '5' } }))
    .toEqual({ status: 400, body: error('3000', `Generic client error - ${name} has no USD NET_DEBIT_CAP yet: set it with POST initialPositionAndLimits`) })
  // Central-ledger clients send whole numbers as JSON numbers; fractions must be strings.
  expect((await call('POST', url, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 10.5 } })).body.errorInformation.errorCode).toBe('3101')
  expect(await call('POST', url, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000 }, initialPosition: '25.5' })).toEqual({ status: 201, body: undefined })
  expect(await call('POST', url, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '1' }, initialPosition: '0' }))
    .toEqual({ status: 400, body: error('3000', `Generic client error - the USD limit and initial position of ${name} are already set`) })
  expect(await call('GET', `/participants/${name}/limits`)).toEqual({ status: 200, body: [{ currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '1000' } }] })
  expect(await call('GET', `/participants/${name}/positions`)).toEqual({ status: 200, body: [{ currency: 'USD', value: '25.5', changedDate: expect.any(String) }] })
  const updated = await call('PUT', `/participants/${name}/limits`, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '2500.25', alarmPercentage: 10 } })
  expect(updated).toEqual({ status: 200, body: { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '2500.25' } } })
  expect((await call('GET', `/participants/${name}/limits?currency=USD&type=NET_DEBIT_CAP`)).body).toEqual([updated.body])
  expect((await call('GET', `/participants/${name}/limits?currency=EUR`)).body).toEqual([])
  expect(await call('PUT', `/participants/${name}/limits`, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '1.001' } }))
    .toEqual({ status: 400, body: error('3100', 'Generic validation error - limit.value has more decimals than USD allows (2)') })
})

test('upserts and lists endpoints, refusing bad URLs and unknown types', async () => {
  const name = await createParticipant()
  const url = `/participants/${name}/endpoints`
  for (const type of ['FSPIOP_CALLBACK_URL_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR']) {
    expect(await call('POST', url, { type, value: 'http://old.example/transfers' })).toEqual({ status: 201, body: undefined })
  }
  await call('POST', url, { type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: 'https://dfsp.example:8443/transfers/{{transferId}}' })
  expect(await call('GET', url)).toEqual({
    status: 200,
    body: [
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', value: 'http://old.example/transfers' },
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'http://old.example/transfers' },
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: 'https://dfsp.example:8443/transfers/{{transferId}}' }
    ]
  })
  expect((await call('GET', `${url}?type=FSPIOP_CALLBACK_URL_TRANSFER_PUT`)).body)
    .toEqual({ type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: 'https://dfsp.example:8443/transfers/{{transferId}}' })
  const refused = (detail) => ({ status: 400, body: error('3100', `Generic validation error - ${detail}`) })
  expect(await call('POST', url, { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'ftp://dfsp.example/x' })).toEqual(refused('value must be an http or https URL'))
  expect(await call('POST', url, { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'dfsp.example/x' })).toEqual(refused('value must be an absolute http(s) URL'))
  expect(await call('POST', url, { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'http://d/{{transferId}' })).toEqual(refused('value has a malformed {{template}}'))
  expect(await call('POST', url, { type: 'SOMETHING', value: 'http://d/' }))
    .toEqual(refused('type SOMETHING is not an FSPIOP_CALLBACK_URL_* type or a notification e-mail type'))
})

test('lists accounts and positions; a position in a currency the participant lacks is 404', async () => {
  const name = await createParticipant()
  const balance = (ledgerAccountType) =>
    ({ id: expect.any(Number), ledgerAccountType, currency: 'USD', isActive: 1, value: '0', reservedValue: '0', changedDate: expect.any(String) })
  expect(await call('GET', `/participants/${name}/accounts`)).toEqual({ status: 200, body: [balance('POSITION'), balance('SETTLEMENT')] })
  expect(await call('GET', `/participants/${name}/positions?currency=USD`)).toEqual({ status: 200, body: { currency: 'USD', value: '0', changedDate: expect.any(String) } })
  expect(await call('GET', `/participants/${name}/positions?currency=EUR`))
    .toEqual({ status: 404, body: error('3200', `Generic ID not found - EUR position of participant ${name} not found`) })
})

test('creates hub accounts once, only for the hub', async () => {
  const res = await call('POST', `/participants/${HUB}/accounts`, { type: 'HUB_MULTILATERAL_SETTLEMENT', currency: 'KES' })
  expect(res.status).toBe(201)
  expect(res.body.accounts).toContainEqual(account('HUB_MULTILATERAL_SETTLEMENT', 'KES'))
  expect(await call('POST', `/participants/${HUB}/accounts`, { type: 'HUB_MULTILATERAL_SETTLEMENT', currency: 'KES' }))
    .toEqual({ status: 400, body: error('3000', 'Generic client error - the hub already has a KES HUB_MULTILATERAL_SETTLEMENT account') })
  const name = await createParticipant()
  expect(await call('POST', `/participants/${name}/accounts`, { type: 'HUB_RECONCILIATION', currency: 'USD' }))
    .toEqual({ status: 400, body: error('3000', `Generic client error - only the hub (${HUB}) has accounts created this way`) })
})

test('funds in moves settlement and hub reconciliation by opposite amounts; the currency total is unchanged', async () => {
  const currency = 'MNT' // a currency no other test file moves, so the total over all its accounts is stable
  const { name, settlementId } = await fundedParticipant({ currency })
  const total = async () => (await db('participant_position as pp').join('participant_account as a', 'a.account_id', 'pp.account_id')
    .where('a.currency', currency).sum({ total: 'pp.value' }).first()).total
  const [totalBefore, hubBefore] = [await total(), await hubValue(currency)]
  const { status, transferId } = await funds(name, settlementId, 'recordFundsIn', '1500.75', currency)
  expect(status).toBe(202)
  expect((await balances(name))[`SETTLEMENT ${currency}`].value).toBe('-1500.75')
  expect(parseAmount(await hubValue(currency)) - parseAmount(hubBefore)).toBe(parseAmount('1500.75'))
  expect(await total()).toBe(totalBefore)
  const changes = await changesOf(transferId)
  expect(changes.map((c) => c.change)).toEqual(['-1500.7500', '1500.7500'])
  expect(await stateOf(transferId)).toBe('COMMITTED')
})

test('funds out: reserve then commit, and reserve then abort', async () => {
  const { name, settlementId } = await fundedParticipant({ deposit: '300' })
  const hubBefore = await hubValue('USD')
  const committed = await funds(name, settlementId, 'recordFundsOutPrepareReserve', '100')
  expect(committed.status).toBe(202)
  expect(await stateOf(committed.transferId)).toBe('RESERVED')
  expect((await balances(name))['SETTLEMENT USD'].value).toBe('-200')
  const commitUrl = `/participants/${name}/accounts/${settlementId}/transfers/${committed.transferId}`
  expect(await call('PUT', commitUrl, { action: 'recordFundsOutCommit', reason: 'paid out' })).toEqual({ status: 202, body: undefined })
  expect(await stateOf(committed.transferId)).toBe('COMMITTED')
  expect(await hubValue('USD')).toBe(formatAmount(parseAmount(hubBefore) - parseAmount('100')))
  const aborted = await funds(name, settlementId, 'recordFundsOutPrepareReserve', '50')
  await call('PUT', `/participants/${name}/accounts/${settlementId}/transfers/${aborted.transferId}`, { action: 'recordFundsOutAbort', reason: 'bank refused' })
  expect(await stateOf(aborted.transferId)).toBe('ABORTED')
  expect((await balances(name))['SETTLEMENT USD'].value).toBe('-200')
  expect((await changesOf(aborted.transferId)).map((c) => [c.change, c.value_after])).toEqual([['50.0000', '-150.0000'], ['-50.0000', '-200.0000']])
})

test('funds out beyond the liquidity that covers the position is refused with 4001', async () => {
  const { name, settlementId } = await fundedParticipant({ deposit: '100', initialPosition: '30' })
  expect((await funds(name, settlementId, 'recordFundsOutPrepareReserve', '70.01')).body)
    .toEqual(error('4001', 'Payer FSP insufficient liquidity - USD liquidity after this funds out would be 29.99, below the position 30'))
  expect((await funds(name, settlementId, 'recordFundsOutPrepareReserve', '70')).status).toBe(202)
  expect((await balances(name))['SETTLEMENT USD'].value).toBe('-30')
})

test('a resent funds request changes nothing; a modified one is 3106', async () => {
  const { name, settlementId, fundsUrl } = await fundedParticipant()
  const first = await funds(name, settlementId, 'recordFundsIn', '10')
  expect(await call('POST', fundsUrl, first.request)).toEqual({ status: 202, body: undefined })
  // The same new id twice at once: one records it, the other meets its key and answers as a resend.
  const racing = { ...first.request, transferId: crypto.randomUUID() }
  expect((await Promise.all([call('POST', fundsUrl, racing), call('POST', fundsUrl, racing)])).map((r) => r.status)).toEqual([202, 202])
  expect((await balances(name))['SETTLEMENT USD'].value).toBe('-20')
  expect(await call('POST', fundsUrl, { ...first.request, amount: { amount: '11', currency: 'USD' } }))
    .toEqual({ status: 400, body: error('3106', `Modified request - transfer ${first.transferId} was recorded with a different request`) })
  const out = await funds(name, settlementId, 'recordFundsOutPrepareReserve', '4')
  const url = `/participants/${name}/accounts/${settlementId}/transfers/${out.transferId}`
  await call('PUT', url, { action: 'recordFundsOutCommit', reason: 'r' })
  expect(await call('PUT', url, { action: 'recordFundsOutCommit', reason: 'r' })).toEqual({ status: 202, body: undefined })
  expect((await call('PUT', url, { action: 'recordFundsOutAbort', reason: 'r' })).body)
    .toEqual(error('3106', `Modified request - transfer ${out.transferId} is already COMMITTED`))
  expect((await balances(name))['SETTLEMENT USD'].value).toBe('-16')
  expect(await changesOf(first.transferId)).toHaveLength(2)
})

test('refuses amounts with too many decimals, wrong accounts and a missing hub account', async () => {
  const { name, settlementId } = await fundedParticipant()
  expect((await funds(name, settlementId, 'recordFundsIn', '10.123')).body)
    .toEqual(error('3100', 'Generic validation error - amount.amount has more decimals than USD allows (2)'))
  const positionId = (await balances(name))['POSITION USD'].id
  expect((await funds(name, positionId, 'recordFundsIn', '1')).body)
    .toEqual(error('3100', `Generic validation error - account ${positionId} is a POSITION account; funds move through the SETTLEMENT account`))
  const { name: other, settlementId: otherSettlement } = await fundedParticipant()
  expect((await funds(name, otherSettlement, 'recordFundsIn', '1')).status).toBe(404)
  expect((await call('PUT', `/participants/${other}/accounts/${otherSettlement}/transfers/${crypto.randomUUID()}`, { action: 'recordFundsOutCommit', reason: 'r' })).body.errorInformation.errorCode).toBe('3208')
  const noHub = await createParticipant('BTN')
  const noHubSettlement = (await balances(noHub))['SETTLEMENT BTN'].id
  expect((await funds(noHub, noHubSettlement, 'recordFundsIn', '1', 'BTN')).body)
    .toEqual(error('3000', `Generic client error - no BTN HUB_RECONCILIATION account: create it with POST /participants/${HUB}/accounts`))
})

test('a deactivated hub reconciliation account takes no new funds; a funds out reserved before still completes', async () => {
  const currency = 'NPR' // a currency no other test uses: its hub account is switched off here
  const { name, settlementId } = await fundedParticipant({ currency, deposit: '500' })
  const reserved = await funds(name, settlementId, 'recordFundsOutPrepareReserve', '100', currency)
  expect(reserved.status).toBe(202)
  const hubId = (await balances(HUB))[`HUB_RECONCILIATION ${currency}`].id
  expect((await call('PUT', `/participants/${HUB}/accounts/${hubId}`, { isActive: false })).status).toBe(200)
  try {
    const before = await hubValue(currency)
    for (const action of ['recordFundsIn', 'recordFundsOutPrepareReserve']) {
      expect((await funds(name, settlementId, action, '1', currency)).body)
        .toEqual(error('3000', `Generic client error - the hub's ${currency} HUB_RECONCILIATION account ${hubId} is inactive`))
    }
    expect(await hubValue(currency)).toBe(before)
    expect((await call('PUT', `/participants/${name}/accounts/${settlementId}/transfers/${reserved.transferId}`, { action: 'recordFundsOutCommit', reason: 'r' })).status).toBe(202)
    expect(await stateOf(reserved.transferId)).toBe('COMMITTED')
  } finally {
    await call('PUT', `/participants/${HUB}/accounts/${hubId}`, { isActive: true })
  }
  expect((await funds(name, settlementId, 'recordFundsIn', '1', currency)).status).toBe(202)
})

test('requires the admin token when one is configured', async () => {
  const tokenConfig = testConfig({ HUB_NAME: HUB, ADMIN_TOKEN: 's3cret-token' })
  const secured = buildAdminApp({ config: tokenConfig, logger: createLogger(tokenConfig), db })
  const base = await secured.listen({ host: '127.0.0.1', port: 0 })
  try {
    const unauthorised = { status: 401, body: error('3000', 'Generic client error - the admin API needs Authorization: Bearer <ADMIN_TOKEN>') }
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret-token' }]) {
      expect(await call('GET', '/participants', undefined, { base, headers })).toEqual(unauthorised)
    }
    expect(await call('GET', '/nowhere', undefined, { base })).toEqual(unauthorised)
    expect((await call('GET', '/participants', undefined, { base, headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(200)
  } finally {
    await secured.close()
  }
})

test('a token read from a file with its newline still works; no token on a network interface is refused unless allowed', async () => {
  const fromFile = testConfig({ HUB_NAME: HUB, ADMIN_TOKEN: 's3cret-token\n' })
  const secured = buildAdminApp({ config: fromFile, logger: createLogger(fromFile), db })
  const base = await secured.listen({ host: '127.0.0.1', port: 0 })
  try {
    expect((await call('GET', '/participants', undefined, { base, headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(200)
    expect((await call('GET', '/participants', undefined, { base })).status).toBe(401)
  } finally {
    await secured.close()
  }
  const build = (env) => { const c = testConfig({ HUB_NAME: HUB, ...env }); return buildAdminApp({ config: c, logger: createLogger(c), db }) }
  // An empty token (a Secret holding "") must not open the admin API to the pod network.
  expect(() => build({ ADMIN_HOST: '0.0.0.0', ADMIN_TOKEN: '' })).toThrow('ADMIN_TOKEN is empty and ADMIN_HOST is 0.0.0.0')
  expect(() => build({ ADMIN_HOST: '0.0.0.0', ADMIN_TOKEN: ' \n' })).toThrow('ADMIN_TOKEN is empty and ADMIN_HOST is 0.0.0.0')
  expect(() => build({ ADMIN_TOKEN: 'two words' })).toThrow('ADMIN_TOKEN contains whitespace')
  for (const env of [{ ADMIN_HOST: '127.0.0.1' }, { ADMIN_HOST: '::1' }, { ADMIN_HOST: '0.0.0.0', ADMIN_ALLOW_UNAUTHENTICATED: 'true' }]) {
    const open = build(env)
    await open.close()
  }
})

test('while the database is away, the admin API answers 503 2003 (send it again later); once it is back, the same requests succeed', async () => {
  // The database reached through a TCP relay of this test's own, which it
  // takes away (open connections cut, new ones refused) and brings back.
  const relay = await startTcpRelay(config.DB_SOCKET ? { path: config.DB_SOCKET } : { host: config.DB_HOST, port: config.DB_PORT })
  const port = relay.port()
  const relayed = { ...config, DB_SOCKET: undefined, DB_HOST: '127.0.0.1', DB_PORT: port }
  const logger = createLogger(relayed)
  const relayedDb = createDb(relayed, { logger })
  const admin = buildAdminApp({ config: relayed, logger, db: relayedDb })
  const base = await admin.listen({ host: '127.0.0.1', port: 0 })
  try {
    const name = newName()
    expect((await call('POST', '/participants', { name, currency: 'USD' }, { base })).status).toBe(201)

    await relay.down()
    const unavailable = { status: 503, body: error('2003', 'Service currently unavailable - the database is not available') }
    expect(await call('GET', `/participants/${name}`, undefined, { base })).toEqual(unavailable)
    expect(await call('GET', '/participants', undefined, { base })).toEqual(unavailable)
    const other = newName()
    expect(await call('POST', '/participants', { name: other, currency: 'USD' }, { base })).toEqual(unavailable)

    await relay.up()
    expect((await call('GET', `/participants/${name}`, undefined, { base })).status).toBe(200)
    expect((await call('POST', '/participants', { name: other, currency: 'USD' }, { base })).status).toBe(201)
  } finally {
    await admin.close()
    await relayedDb.destroy()
    await relay.close()
  }
})
