#!/usr/bin/env node
'use strict'

// npm run demo — your first transfer, against a running `npm start`.
// Two simulated participants (HTTP servers on this machine) are provisioned
// through the admin API; the payer sends 10 USD; the payee fulfils; every
// callback either of them receives is printed, then their positions.

const crypto = require('node:crypto')
const { loadConfig } = require('../shared/src/config')
const { createClient, prepareBody } = require('../perf/src/load/client')
const { startParticipant, newCondition } = require('../perf/src/load/participant')

async function main () {
  const config = loadConfig()
  const apiUrl = `http://${config.API_HOST}:${config.API_PORT}`
  const adminUrl = `http://${config.ADMIN_HOST}:${config.ADMIN_PORT}`
  const health = await fetch(`${apiUrl}/health`).then((r) => r.json(), () => null)
  if (!health || health.status !== 'OK') throw new Error(`Switchyard is not running at ${apiUrl}: start it with \`npm start\` first`)
  const client = createClient({ apiUrl, adminUrl, hubName: config.HUB_NAME })
  const suffix = crypto.randomBytes(3).toString('hex')
  const payer = await startParticipant(`payerfsp${suffix}`, { api: () => apiUrl })
  const payee = await startParticipant(`payeefsp${suffix}`, { api: () => apiUrl })
  try {
    console.log(`provisioning ${payer.name} and ${payee.name} (USD account, net debit cap 10000, 10000 deposited, callback endpoints)`)
    await client.provision(payer, { ndc: '10000', deposit: '10000' })
    await client.provision(payee, { ndc: '10000', deposit: '10000' })
    const { fulfilment, condition } = newCondition()
    const body = prepareBody({ payer: payer.name, payee: payee.name, amount: '10', condition })
    payee.plan(body.transferId, { action: 'fulfil', fulfilment })
    const t0 = Date.now()
    const res = await client.fspiop('POST', '/transfers', { source: payer.name, destination: payee.name, body })
    console.log(`POST /transfers ${body.transferId} → ${res.status}`)
    await payer.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'the final state', 15000)
    await payee.waitFor((r) => r.method === 'PUT' && r.path === `/transfers/${body.transferId}`, 'the final state', 15000)
    for (const [who, p] of /** @type {[string, typeof payer][]} */ ([['payee', payee], ['payer', payer]])) {
      for (const r of p.received) console.log(`  +${String(r.at - t0).padStart(4)} ms  ${who} received ${r.method} ${r.path}  ${JSON.stringify(r.body).slice(0, 110)}`)
    }
    console.log(`positions: ${payer.name} ${await client.position(payer.name)} USD, ${payee.name} ${await client.position(payee.name)} USD`)
  } finally {
    await payer.close()
    await payee.close()
  }
}

main().catch((err) => { console.error(`[demo] ${err.message}`); process.exit(1) })
