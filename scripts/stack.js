#!/usr/bin/env node
'use strict'

// npm run stack:up | stack:down | stack:status

const path = require('node:path')
const stack = require('./stack/index')
const { loadConfig } = require('../shared/src/config')

const say = (m) => console.log(`[stack] ${m}`)

async function main (command) {
  const config = loadConfig()
  if (command === 'up') {
    const t0 = Date.now()
    await stack.up(config, { say })
    say(`up in ${((Date.now() - t0) / 1000).toFixed(1)} s — Kafka ${config.KAFKA_BROKERS.join(',')}, MySQL ${config.DB_HOST}:${config.DB_PORT}/${config.DB_NAME}`)
  } else if (command === 'down') {
    await stack.down(config, { say })
  } else if (command === 'status') {
    const s = await stack.status(config)
    for (const [name, st] of /** @type {[string, any][]} */ (Object.entries(s))) {
      if (!st.local) say(`${name}: external (${st.brokers || st.host}), not managed here`)
      else say(`${name}: ${st.pid ? `running, pid ${st.pid}, ${st.answering ? 'answering' : 'NOT answering'}` : 'stopped'} — log ${st.logFile}`)
      // The broker's secured listeners (README, "TLS and SASL, locally").
      if (st.local && st.pid && st.secured) {
        const relative = (/** @type {string} */ file) => path.relative(process.cwd(), file) || file
        say(`kafka: also SASL_SSL on ${st.secured.saslSsl} (user ${st.secured.username}), mutual TLS on ${st.secured.mutualTls}; CA ${relative(st.secured.caFile)}`)
      }
    }
  } else {
    throw new Error('usage: node scripts/stack.js up|down|status')
  }
}

main(process.argv[2]).catch((err) => {
  console.error(`[stack] ${err.message}`)
  process.exit(1)
})
